// How the crew graph shows a run (UX.md "While a crew runs"), as class names and
// numbers the node and edge components add to what they draw (styles in run.css):
// the agent at work glows with a typing indicator, done agents get a check, a
// failed one turns red, Wait lights up while the crew waits for you, End shows how
// the run ended; an arrow taken pulses once and counts. Also which arrow of the
// graph a tracker line stands for. Pure: the hooks are in useRunGraph.ts.
import type { RunStatus } from "../../bindings/RunStatus";
import type { ViewEdge } from "../../bindings/ViewEdge";
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

/** The id a run's events use for a graph node: `agent:teacher` → `teacher`,
 * `group:exam_round` → `exam_round`; `end`, `wait`, `router` as they are. */
export function idInRun(nodeId: string): string {
  const colon = nodeId.indexOf(":");
  return colon >= 0 && (nodeId.startsWith("agent:") || nodeId.startsWith("group:")) ? nodeId.slice(colon + 1) : nodeId;
}

/** The run classes of a node ("" when the run has nothing to show on it):
 * agents `run-active` / `run-done` / `run-failed` / `run-waiting`; groups
 * `run-active` while their members work, then `run-done`; Wait `run-waiting` while
 * the crew waits; End `run-end run-end-<tone>` once the run is over. */
export function nodeRunClass(nodeId: string, view: RunView | null): string {
  if (!view) return "";
  if (nodeId.startsWith("agent:")) {
    const state = view.agents[idInRun(nodeId)];
    return state && state !== "idle" ? `run-${state}` : "";
  }
  if (nodeId.startsWith("group:")) {
    const progress = view.groups[idInRun(nodeId)];
    if (!progress) return "";
    return progress.finished ? "run-done" : "run-active";
  }
  if (nodeId === "wait") return view.status === "paused" ? "run-waiting" : "";
  if (nodeId === "end") {
    if (!view.result || view.status === "running" || view.status === "paused") return "";
    return `run-end run-end-${runTone(view.status)}`;
  }
  return "";
}

/** How often the run took an arrow, and whether it was the last one taken (it
 * pulses once). Arrows are told apart by their two ends. */
export function edgeRunInfo(edge: { source: string; target: string }, view: RunView | null): { count: number; pulse: boolean } {
  if (!view) return { count: 0, pulse: false };
  const key = edgeKey(idInRun(edge.source), idInRun(edge.target));
  return { count: view.edges[key] ?? 0, pulse: view.pulse?.keys.includes(key) ?? false };
}

/** The graph's arrow a handoff took (the first target's, for a broadcast): from
 * the sender's card (the router's, for a router's choice) to the agent or group;
 * a signal's own arrow first, then an "otherwise" arrow for a fallback. */
export function edgeForHandoff(handoff: Handoff, edges: readonly ViewEdge[]): string | null {
  const to = handoff.to.split(", ")[0] ?? handoff.to;
  const routed = handoff.decision?.strategy === "llm" || handoff.decision?.strategy === "gatekeeper";
  const sources = routed ? ["router", `agent:${handoff.from}`] : [`agent:${handoff.from}`];
  const targets = [`agent:${to}`, `group:${to}`];
  const between = edges.filter((e) => sources.includes(e.source) && targets.includes(e.target));
  if (between.length === 0) return null;
  const signal = handoff.signal?.signal ?? /^signal (.+) \([a-z_]+\)$/.exec(handoff.reason)?.[1];
  const preferred =
    (signal && between.find((e) => e.kind === "signal" && e.signal === signal)) ||
    (handoff.reason.startsWith("no signal matched") && between.find((e) => e.kind === "fallback")) ||
    between.find((e) => e.source === sources[0]) ||
    between[0];
  return preferred.id;
}
