// The visual language of UX.md, in one place: one colour per behaviour and per
// kind of edge, the words on edge pills, and each agent's avatar colour.
import type { Behavior } from "../bindings/Behavior";
import type { EdgeKind } from "../bindings/EdgeKind";
import type { ViewEdge } from "../bindings/ViewEdge";

export const behaviorColor: Record<Behavior, string> = {
  route: "#2563eb",
  parallel: "#7c3aed",
  broadcast: "#0d9488",
  terminate: "#16a34a",
  pause: "#ea580c",
};

/** Plain words for each behaviour, for the legend and the inspector. */
export const behaviorWords: Record<Behavior, string> = {
  route: "hands the work to one agent",
  parallel: "starts a group working side by side",
  broadcast: "sends the reply to several agents",
  terminate: "ends the run",
  pause: "waits for you",
};

const kindColor: Record<Exclude<EdgeKind, "signal">, string> = {
  fallback: "#94a3b8",
  group_next: "#7c3aed",
  membership: "#a78bfa",
  terminal: "#16a34a",
  waits: "#ea580c",
  score: "#db2777",
  finalize: "#64748b",
  assign: "#0891b2",
  asks: "#0891b2",
};

/** Plain words for the edges that are not signals, for the legend. */
export const kindWords: Record<Exclude<EdgeKind, "signal">, string> = {
  fallback: "otherwise: used when no signal matched",
  group_next: "where the work goes after a group",
  membership: "a group member drawn outside its frame",
  terminal: "this agent finishes the run",
  waits: "this agent waits for you when it sends no signal",
  score: "the supervisor may pick this specialist",
  finalize: "the specialist's answer goes on to be finalized",
  assign: "the router may give the work to this agent",
  asks: "the person's request goes to the router, which picks who works on it",
};

export function edgeColor(edge: Pick<ViewEdge, "kind" | "behavior">): string {
  if (edge.kind === "signal") return behaviorColor[edge.behavior ?? "route"];
  return kindColor[edge.kind];
}

/** Dashed for the edges that are not a signal's direct route. */
export function edgeDashed(edge: Pick<ViewEdge, "kind">): boolean {
  return edge.kind === "fallback" || edge.kind === "membership" || edge.kind === "score" || edge.kind === "assign" || edge.kind === "asks";
}

/** Descriptions longer than this stay in the tooltip and the inspector. */
export const maxPillWords = 28;

/** Words first, brackets second: "asks a question · [QUESTION]" (UX.md). A long
 * description would make the pill (and the whole drawing) wide, so the pill then
 * shows the signal alone. A line signal shows the line its agent writes
 * ("ready for review · READY_FOR_REVIEW: <id>", from `written`: lineSignals.ts),
 * not its name (`review-ready`), which stays in the tooltip and the inspector. */
export function edgeLabel(
  edge: Pick<ViewEdge, "kind" | "label" | "signal" | "description">,
  written?: ReadonlyMap<string, string>,
): string {
  if (edge.kind === "signal" && edge.signal) {
    const signal = written?.get(edge.signal) ?? edge.signal;
    const words = edge.description?.trim();
    // Words that only repeat the signal ("ready for review" · READY_FOR_REVIEW) are said once.
    if (!words || [...words].length > maxPillWords || sameWords(words, signal)) return signal;
    return `${words} · ${signal}`;
  }
  return edge.label;
}

/** The words of a description and of a signal are the same words ("ready for
 * review" and `READY_FOR_REVIEW: <id>`), whatever their case and punctuation. */
function sameWords(description: string, signal: string): boolean {
  const words = (text: string) =>
    text
      .replace(/<[^>]*>/g, " ")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .join(" ");
  return words(description) !== "" && words(description) === words(signal);
}

const avatarHues = [210, 160, 280, 20, 340, 45, 190, 250];

/** A stable colour per agent id. */
export function avatarColor(id: string): string {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return `hsl(${avatarHues[hash % avatarHues.length]} 65% 45%)`;
}

/** The letter on an agent's avatar. */
export function avatarLetter(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toLocaleUpperCase() : "?";
}

/** "30 s", "2 min", "1.5 s". */
export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
