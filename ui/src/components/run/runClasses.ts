// How the crew graph shows a run (UX.md "While a crew runs"), as class names and
// numbers the node and edge components add to what they draw (styles in run.css):
// the agent at work glows with a typing indicator, done agents get a check, a
// failed one turns red, Wait lights up while the crew waits for you, End shows how
// the run ended; an arrow taken pulses once and counts. Also which arrow of the
// graph a tracker line stands for. Pure: the hooks are in useRunGraph.ts.
import type { RunStatus } from "../../bindings/RunStatus";
import { type Arrow, type NodeRef, runName } from "../../graph/refs";
import { edgeKey, type Handoff, type RunView } from "../../run/reducer";

/** How a run stands, for colours: at work, finished, waiting for you, stopped
 * short (a limit, no route, a loop, cancelled), or failed. */
export type RunTone = "running" | "finished" | "waiting" | "stopped" | "failed";

export function runTone(status: RunStatus): RunTone {
  switch (status) {
    case "running":
      return "running";
    case "terminated":
    case "completed":
      return "finished";
    case "paused":
      return "waiting";
    case "failed":
      return "failed";
    case "max_handoffs":
    case "no_route":
    case "signal_failure":
    case "loop_detected":
    case "cancelled":
      return "stopped";
  }
}

/** The run classes of a node ("" when the run has nothing to show on it):
 * agents `run-active` / `run-done` / `run-failed` / `run-waiting`; groups
 * `run-active` while their members work, then `run-done`; Wait `run-waiting` while
 * the crew waits; End `run-end run-end-<tone>` once the run is over. */
export function nodeRunClass(node: NodeRef, view: RunView | null): string {
  if (!view) return "";
  if (node.agent !== null) {
    const state = view.agents[node.agent];
    return state && state !== "idle" ? `run-${state}` : "";
  }
  if (node.group !== null) {
    const progress = view.groups[node.group];
    if (!progress) return "";
    return progress.finished ? "run-done" : "run-active";
  }
  // (A run waiting for a tool call to be allowed waits at its agent, not at Wait; so
  // does one paused before an agent's turn, as the person asked.)
  if (node.kind === "wait") return view.status === "paused" && !view.approval && !view.paused?.breakpoint ? "run-waiting" : "";
  if (node.kind === "end") {
    if (!view.result || view.status === "running" || view.status === "paused") return "";
    return `run-end run-end-${runTone(view.status)}`;
  }
  return "";
}

/** How often the run took an arrow, and whether it was the last one taken (it
 * pulses once). Arrows are told apart by their two ends. */
export function edgeRunInfo(ends: { source: NodeRef; target: NodeRef }, view: RunView | null): { count: number; pulse: boolean } {
  if (!view) return { count: 0, pulse: false };
  const key = edgeKey(runName(ends.source), runName(ends.target));
  return { count: view.edges[key] ?? 0, pulse: view.pulse?.keys.includes(key) ?? false };
}

/** The graph's arrow a handoff took (the first target's, for a broadcast): from
 * the sender's card (the router's, for a router's choice) to the agent or group;
 * a signal's own arrow first, then an "otherwise" arrow for a fallback. A move that
 * is not a transfer (a group's "then", to End, to Wait): the arrow between its ends. */
export function edgeForHandoff(handoff: Handoff, arrows: readonly Arrow[]): string | null {
  if (handoff.kind !== "transfer") {
    // A group's "then", the move to End or to Wait: the arrow between the two ends it took.
    const key = handoff.edges[0];
    return arrows.find((a) => edgeKey(runName(a.source), runName(a.target)) === key)?.view.id ?? null;
  }
  const to = handoff.to.split(", ")[0] ?? handoff.to;
  const routed = handoff.decision?.strategy === "llm" || handoff.decision?.strategy === "gatekeeper";
  // The router's arrow first when a router chose.
  const fromRouter = (arrow: Arrow) => routed && arrow.source.kind === "router";
  const fromSender = (arrow: Arrow) => arrow.source.agent === handoff.from;
  const between = arrows.filter((a) => (fromRouter(a) || fromSender(a)) && (a.target.agent === to || a.target.group === to));
  if (between.length === 0) return null;
  const signal = handoff.signal?.signal ?? /^signal (.+) \([a-z_]+\)$/.exec(handoff.reason)?.[1];
  const preferred =
    (signal && between.find((a) => a.view.kind === "signal" && a.view.signal === signal)) ||
    (handoff.reason.startsWith("no signal matched") && between.find((a) => a.view.kind === "fallback")) ||
    between.find(routed ? fromRouter : fromSender) ||
    between[0];
  return preferred.view.id;
}
