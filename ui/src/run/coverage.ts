// Route coverage in the window (the run dock's Test tab): how often the test's runs
// took each arrow, as a heat the canvas paints the arrow with — never (red, dashed),
// in few of the runs, in many, in (nearly) all — the legend's words for each, and
// the report's lists in plain words: the arrows no run can take and why, the agents
// no run gives work. Pure; the store is coverageStore.ts, the tab TestView.tsx.
import type { ArrowCoverage } from "../bindings/ArrowCoverage";
import type { CrewTest } from "../bindings/CrewTest";

/** How often the runs took an arrow. */
export type Heat = "never" | "few" | "many" | "all";

export const HEATS: readonly Heat[] = ["never", "few", "many", "all"];

/** An arrow's heat: the share of the runs that took it (a third or less is few,
 * two thirds or less many, more is all). */
export function heatOf(taken: { runs: number }, runs: number): Heat {
  if (taken.runs <= 0 || runs <= 0) return "never";
  const share = taken.runs / runs;
  if (share <= 1 / 3) return "few";
  if (share <= 2 / 3) return "many";
  return "all";
}

/** The numbers of runs (of `runs`) that give an arrow `heat`. */
function counts(heat: Heat, runs: number): number[] {
  const out: number[] = [];
  for (let k = 1; k <= runs; k++) if (heatOf({ runs: k }, runs) === heat) out.push(k);
  return out;
}

/** The runs a heat stands for, in words, for `runs` runs: "in 1–3 of 9 runs". */
export function heatWords(heat: Heat, runs: number): string {
  if (heat === "never") return "never taken";
  const ks = counts(heat, runs);
  if (ks.length === 0) return "";
  const first = ks[0];
  const last = ks[ks.length - 1];
  if (runs === 1) return "in the run";
  if (first === runs) return `in all ${runs} runs`;
  return `in ${first === last ? first : `${first}–${last}`} of ${runs} runs`;
}

/** The legend: each heat that can occur with `runs` runs, with its words. */
export function legend(runs: number): { heat: Heat; words: string }[] {
  return HEATS.filter((heat) => heat === "never" || counts(heat, runs).length > 0).map((heat) => ({ heat, words: heatWords(heat, runs) }));
}

/** An arrow as people read it: "Teacher → Student · [QUESTION]". */
export function arrowWords(arrow: Pick<ArrowCoverage, "from" | "to" | "label">): string {
  return `${arrow.from} → ${arrow.to} · ${arrow.label}`;
}

/** The test's verdict in one line. */
export function verdict(report: CrewTest): string {
  const never = report.arrows.filter((a) => a.taken === 0).length;
  const failed = report.scenarios.filter((s) => !s.passed).length + report.probes.filter((p) => !p.passed).length;
  const runs = `${report.runs} ${report.mode === "scenarios" ? "simulated run" : "run"}${report.runs === 1 ? "" : "s"}`;
  if (report.passed) return `Every arrow was taken in ${runs}, and every run ended as planned.`;
  const parts: string[] = [];
  if (never > 0) parts.push(`${never} arrow${never === 1 ? " is" : "s are"} never taken`);
  if (failed > 0) parts.push(`${failed} run${failed === 1 ? "" : "s"} did not end as planned`);
  return `${parts.join(", and ")} (${runs}).`;
}

/** Each arrow's heat by its id, for the canvas. */
export function heats(report: CrewTest): Record<string, Heat> {
  const out: Record<string, Heat> = {};
  for (const arrow of report.arrows) out[arrow.id] = heatOf(arrow, report.runs);
  return out;
}

/** How the canvas draws an arrow of `heat`: its colour (a CSS variable, themed),
 * width and dashes. */
export function heatStroke(heat: Heat, selected: boolean): { stroke: string; strokeWidth: number; strokeDasharray?: string } {
  const width = { never: 2.5, few: 2.5, many: 3.5, all: 5 }[heat] + (selected ? 1 : 0);
  return { stroke: `var(--coverage-${heat})`, strokeWidth: width, strokeDasharray: heat === "never" ? "5 4" : undefined };
}
