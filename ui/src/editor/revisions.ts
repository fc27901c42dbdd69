// A crew's revisions side by side, the pure parts: which two revisions the person
// picked to compare (older first), what a revision's runs and time say in words,
// the instructions that changed (their line hunks) out of a comparison, the class
// each node and arrow of the compared graph wears, and restoring a revision as one
// edit of the editor (one undo step). The history panel and the compare view
// (components/editor/HistoryPanel.tsx, RevisionCompare.tsx) draw these.
import type { Change } from "../bindings/Change";
import type { CrewDiff } from "../bindings/CrewDiff";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GraphView } from "../bindings/GraphView";
import type { RevisionView } from "../bindings/RevisionView";
import type { RunSummary } from "../bindings/RunSummary";
import type { TextHunk } from "../bindings/TextHunk";
import { statusShort } from "../components/run/RunsList";
import { dollars } from "../run/words";
import { deepEqual } from "./equal";
import type { Positions } from "./history";
import { type EditResult, ok, refuse } from "./result";

/** The revisions picked to compare after a click on `revision`: a picked one is
 * unpicked; a third pick replaces the earlier of the two. */
export function togglePick(picked: number[], revision: number): number[] {
  if (picked.includes(revision)) return picked.filter((r) => r !== revision);
  return [...picked, revision].slice(-2);
}

/** The two picks as (older, newer), or null until two are picked. */
export function comparedPair(picked: number[]): [number, number] | null {
  if (picked.length !== 2) return null;
  const [a, b] = picked;
  return a < b ? [a, b] : [b, a];
}

/** What to pick when the history opens: the two newest revisions (the last change),
 * the older first, so a third pick replaces it and is compared with the newest. */
export function firstPicks(revisions: RevisionView[]): number[] {
  return revisions
    .slice(0, 2)
    .map((r) => r.revision)
    .reverse();
}

/** A run of a revision in words: "finished · 7 steps · $0.0042". */
export function runLine(run: RunSummary): string {
  const steps = `${run.steps} step${run.steps === 1 ? "" : "s"}`;
  const cost = typeof run.tokens.cost_usd === "number" ? ` · ${dollars(run.tokens.cost_usd)}` : "";
  return `${statusShort[run.status]} · ${steps}${cost}`;
}

/** What a revision's runs cost together, when any was priced ("$0.012"); null otherwise. */
export function runsCost(runs: RunSummary[]): string | null {
  const priced = runs.filter((r) => typeof r.tokens.cost_usd === "number");
  if (priced.length === 0) return null;
  return dollars(priced.reduce((sum, r) => sum + (r.tokens.cost_usd ?? 0), 0));
}

/** What changed in a revision, as its line in the history says it. */
export function changeLines(revision: RevisionView): string[] {
  if (revision.previous === null) return ["The first revision kept."];
  if (revision.changes.length === 0) return ["Nothing changed in how the crew works (only how its file is written)."];
  return revision.changes.map((c) => c.charAt(0).toUpperCase() + c.slice(1));
}

/** "27 Nov, 15:06" (the year too when it is not this one). */
export function savedWords(savedAt: string, now = new Date()): string {
  const at = new Date(savedAt);
  if (Number.isNaN(at.getTime())) return "";
  const day = at.toLocaleDateString([], at.getFullYear() === now.getFullYear() ? { day: "numeric", month: "short" } : { day: "numeric", month: "short", year: "numeric" });
  return `${day}, ${at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
}

/** One text that changed between two revisions (an agent's instructions, goal …). */
export type TextChange = { key: string; title: string; hunks: TextHunk[] };

/** Every long text that changed, with its line hunks: "Writer's instructions". */
export function textChanges(diff: CrewDiff): TextChange[] {
  return diff.agents.flatMap((agent) =>
    agent.fields.filter((f) => f.hunks.length > 0).map((f) => ({ key: `${agent.id}:${f.field}`, title: `${agent.name}'s ${f.words}`, hunks: f.hunks })),
  );
}

/** The class a node or arrow of the compared graph wears ("" when unchanged). */
export function markClass(marks: { [id: string]: Change | undefined }, id: string): string {
  const mark = marks[id];
  return mark ? `diff-${mark}` : "";
}

/** How many of the compared graph's nodes and arrows were added, removed, changed. */
export function markCounts(marks: { [id: string]: Change | undefined }): Record<Change, number> {
  const counts: Record<Change, number> = { added: 0, removed: 0, changed: 0 };
  for (const mark of Object.values(marks)) if (mark) counts[mark] += 1;
  return counts;
}

/** The edit that restores a revision: the crew becomes `restored` (refused when it
 * already is, so no empty undo step is made). */
export function restoreRevision(restored: CrewSpec): (spec: CrewSpec) => EditResult {
  return (spec) => (deepEqual(spec, restored) ? refuse("The crew is already this revision.") : ok(restored));
}

/** Where the compared graph's nodes go: where the person placed them in the editor,
 * when every card and End/Wait has a place there; null when some (a removed agent,
 * one the editor no longer has) have none, and the graph is laid out anew. */
export function comparePlaces(graph: GraphView, placed: Positions): Positions | null {
  const nodes = graph.nodes.filter((n) => n.kind !== "group");
  return nodes.every((n) => placed[n.id]) ? Object.fromEntries(nodes.map((n) => [n.id, placed[n.id]])) : null;
}
