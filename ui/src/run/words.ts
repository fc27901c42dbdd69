// A run in plain words (UX.md "Words"): the status line for every RunStatus, why
// each handoff happened (the tracker's lines), how a signal matched, a group's
// progress, the time of an event, and what a run cost (tokens and time). Pure:
// names come from the caller.
import type { MatchLevel } from "../bindings/MatchLevel";
import type { Usage } from "../bindings/Usage";
import type { GroupProgress, Handoff, RunView, SignalHit, UsageTally } from "./reducer";
import { activeAgents } from "./reducer";
import { explainFailure, failureLine } from "./errors";

/** An agent's (or group's) name for the window; the id when nothing better is known. */
export type Namer = (id: string) => string;

export const idName: Namer = (id) => id;

/** How a signal was found, in words. */
export const levelWords: Record<MatchLevel, string> = {
  exact: "exact",
  case_insensitive: "ignoring case",
  normalized: "ignoring case and spacing",
  pattern: "by pattern",
  none: "not found",
};

/** The pill under a turn: "said [QUESTION] · exact". */
export function signalPill(signal: SignalHit): string {
  return `said ${signal.signal} · ${levelWords[signal.level]}`;
}

/** Names for a handoff's target ("a, b" for a broadcast). */
export function targetNames(to: string, name: Namer): string {
  return to
    .split(", ")
    .filter(Boolean)
    .map((id) => name(id))
    .join(", ");
}

/** A signal as the reply said it: `[QUESTION]`, or a line signal's name with the
 * payload it carried ("review-ready: T-42"). */
export function saidWords(signal: SignalHit): string {
  return signal.payload ? `${signal.signal}: ${signal.payload}` : signal.signal;
}

/** Why a move happened, after the arrow: "because the reply said [QUESTION]
 * (exact)", "then: the group is done", "said [END] — the run is over". */
export function handoffReason(handoff: Handoff): string {
  switch (handoff.kind) {
    case "then":
      return "then: the group is done and hands the work back";
    case "end":
      if (handoff.signal) return `said ${saidWords(handoff.signal)}, so the run is over`;
      if (handoff.from === "router") return `the ${handoff.decision?.strategy === "gatekeeper" ? "gatekeeper" : "router"} decided the work is done`;
      return "its turn ends the run";
    case "wait":
      return handoff.signal ? `said ${saidWords(handoff.signal)}, so the crew waits for you` : "the crew waits for you";
    case "transfer":
      break;
  }
  if (handoff.signal && handoff.signal.behavior !== "terminate" && handoff.signal.behavior !== "pause") {
    return `because the reply said ${saidWords(handoff.signal)} (${levelWords[handoff.signal.level]})`;
  }
  const reason = handoff.reason.trim();
  const signal = /^signal (.+) \(([a-z_]+)\)$/.exec(reason);
  if (signal) {
    const level = signal[2] as MatchLevel;
    return `because the reply said ${signal[1]} (${levelWords[level] ?? level})`;
  }
  const decision = handoff.decision;
  if (decision?.strategy === "llm" || decision?.strategy === "gatekeeper") {
    return `the ${decision.strategy === "llm" ? "router" : "gatekeeper"}: ${decision.reasoning?.trim() || reason}`;
  }
  if (reason === "requested by the person") return "you asked for this agent";
  const score = /^best score \((-?\d+(?:\.\d+)?)\)$/.exec(reason);
  if (score) return `best match (score ${score[1]})`;
  if (decision?.strategy === "scoring") {
    const chosen = decision.candidates.find((c) => c.agent === decision.chosen);
    if (chosen) return `best match (score ${chosen.score})`;
  }
  if (reason.startsWith("no signal matched; fallback to its handoff target")) return "no signal in the reply, so the otherwise arrow (fallback)";
  if (reason.startsWith("no signal matched")) return "no signal in the reply, so the next agent of the crew (automatic fallback)";
  if (reason === "finalize") return "to write the final answer";
  if (reason.startsWith("no specialist scored above 0")) return "no specialist matched, so the final answer";
  return reason;
}

/** Where a move went, in words: agents and groups by name, "End", "Wait for you". */
export function moveTarget(handoff: Handoff, name: Namer): string {
  if (handoff.kind === "end") return "End";
  if (handoff.kind === "wait") return "Wait for you";
  return targetNames(handoff.to, name);
}

/** Who made a move: an agent or group by name, or the router. */
export function moveSource(handoff: Handoff, name: Namer): string {
  if (handoff.from === "router" && (handoff.kind === "end" || handoff.decision)) return handoff.decision?.strategy === "gatekeeper" ? "Gatekeeper" : "Router";
  return name(handoff.from);
}

/** One tracker line: "Teacher → Student · because the reply said [QUESTION] (exact)". */
export function handoffLine(handoff: Handoff, name: Namer): string {
  return `${moveSource(handoff, name)} → ${moveTarget(handoff, name)} · ${handoffReason(handoff)}`;
}

/** How many transfers a crew's `max_handoffs` allows: the engine refuses the
 * transfer that would reach the limit, so `max_handoffs N` allows N − 1. */
export function transfersAllowed(maxHandoffs: number): number {
  return Math.max(0, maxHandoffs - 1);
}

/** The crew form's words for `max_handoffs`, naming what it does: the label, and
 * the help line for a limit of `limit` (the crew's, or the default it falls back on). */
export function handoffLimitWords(limit: number): { label: string; help: string } {
  const transfers = transfersAllowed(limit);
  return {
    label: "Handoff limit",
    help: `A run may pass the work between agents ${plural(transfers, "time")}; one more stops it ("Stopped after ${plural(transfers, "transfer")}").`,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The run's status line, in plain words, for every status. */
export function statusWords(view: RunView, name: Namer = idName): string {
  const result = view.result;
  switch (view.status) {
    case "running": {
      if (view.lastSeq < 0) return "Starting…";
      const working = activeAgents(view);
      if (working.length === 0) return "Running…";
      return `Running: ${working.map(name).join(", ")} ${working.length === 1 ? "is" : "are"} working`;
    }
    case "paused": {
      if (view.approval) return `Paused: ${name(view.approval.agent)} waits for you to allow ${view.approval.name}`;
      if (view.paused?.breakpoint) return `Paused before ${name(view.paused.agent)}'s turn: go on when you are ready`;
      const agent = view.paused?.agent ?? result?.finalAgent;
      const signal = view.paused?.signal;
      if (!agent) return "Paused: the crew is waiting for you";
      return `Paused: the crew is waiting for you (${name(agent)} ${signal ? `said ${signal}` : "asked for your answer"})`;
    }
    case "terminated": {
      const by = result?.finalAgent;
      if (by && result?.signal) return `Finished: ${name(by)} said ${result.signal.signal}`;
      return by ? `Finished: ${name(by)} ended the run` : "Finished";
    }
    case "completed": {
      const decision = result?.decision;
      if (decision && (decision.strategy === "llm" || decision.strategy === "gatekeeper")) {
        return `Finished: the ${decision.strategy === "llm" ? "router" : "gatekeeper"} decided the work is done`;
      }
      return result?.finalAgent ? `Finished: ${name(result.finalAgent)} finished the work` : "Finished";
    }
    case "max_handoffs": {
      const error = result?.error ?? "";
      const decisions = /^max_iterations \((\d+)\) reached/.exec(error);
      if (decisions) return `Stopped after ${plural(Number(decisions[1]), "routing decision")}, the most this crew allows`;
      const handoffs = result?.handoffs ?? view.handoffs.filter((h) => h.kind === "transfer").length;
      return `Stopped after ${plural(handoffs, "transfer")}, the most this crew allows`;
    }
    case "no_route": {
      const agent = result?.finalAgent;
      return agent ? `Stopped: ${name(agent)} sent no signal and had no one to hand off to` : "Stopped: no agent to hand off to";
    }
    case "signal_failure": {
      const agent = result?.finalAgent;
      return `Stopped: ${agent ? name(agent) : "an agent"} replied three times without a signal`;
    }
    case "loop_detected": {
      const loop = view.loops.at(-1);
      return loop && loop.agents.length > 0
        ? `Stopped: the crew went round in a loop (${[...loop.agents, loop.agents[0]].map(name).join(" → ")})`
        : "Stopped: the crew went round in a loop";
    }
    case "cancelled":
      return "Cancelled";
    case "failed":
      return failureLine(explainFailure(result?.error ?? "something went wrong"), name);
  }
}

/** What the End node says once the run is over; null while it goes on (or waits).
 * A failure says what happened, without the advice (the run dock has it). */
export function endWords(view: RunView | null, name: Namer = idName): string | null {
  if (!view?.result || view.status === "running" || view.status === "paused") return null;
  if (view.status === "failed") {
    const failure = explainFailure(view.result.error ?? "something went wrong");
    return `${failure.agent ? `Failed at ${name(failure.agent)}` : "Failed"}: ${failure.headline}`;
  }
  return statusWords(view, name);
}

/** A group frame's progress: "2 of 3 done · 12 s left" (time left when `nowMs` is
 * given and the group has a timeout), "1 ran out of time" once it is over. */
export function groupWords(progress: GroupProgress, timeoutMs: number | null = null, nowMs: number | null = null): string {
  const total = progress.members.length;
  const parts = [`${progress.done.length} of ${total} done`];
  if (progress.timedOut.length > 0) parts.push(`${progress.timedOut.length} ran out of time`);
  if (!progress.finished && timeoutMs !== null && nowMs !== null) {
    const started = Date.parse(progress.startedAt);
    if (!Number.isNaN(started)) {
      // (Clamped: the engine's clock and the window's may differ a little.)
      const left = Math.min(Math.ceil(timeoutMs / 1000), Math.max(0, Math.ceil((started + timeoutMs - nowMs) / 1000)));
      parts.push(`${left} s left`);
    }
  }
  return parts.join(" · ");
}

/** "10:00:07": an event's time, in the person's own clock. */
export function timeOf(timestamp: string): string {
  const at = new Date(timestamp);
  if (Number.isNaN(at.getTime())) return "";
  return clock.format(at);
}

/** One formatter for every time shown: making one per call (toLocaleTimeString with
 * options) costs more than the rest of a tracker line together. */
const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

const count = new Intl.NumberFormat("en");
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** "1,234": a number of tokens. */
export function tokenCount(n: number): string {
  return count.format(n);
}

/** "4.2 s", "1 min 5 s": how long something took. */
export function seconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const rest = Math.round((ms % 60_000) / 1000);
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

/** The run's totals: "1,234 tokens in · 321 out · $0.0042 · 4.2 s" — the cost when
 * the models' prices are set ("No tokens spent · 4.2 s" when no provider reported
 * any: Simulate mode). */
export function usageWords(total: UsageTally): string {
  const time = seconds(total.latencyMs);
  if (total.counted === 0) return `No tokens spent · ${time}`;
  const cost = total.priced > 0 ? ` · ${dollars(total.costUsd)}` : "";
  return `${tokenCount(total.inputTokens)} tokens in · ${tokenCount(total.outputTokens)} out${cost} · ${time}`;
}

/** "$0.0042", "$1.25": an amount in US dollars, with the digits a small one needs. */
export function dollars(usd: number): string {
  if (usd === 0) return "$0";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(2).replace(/0+$/, "").replace(/\.$/, "")}`;
}

/** A stored run's tokens (and cost) for the runs list: "1.2K tokens · $0.0042"
 * (null: none spent). */
export function runTokens(tokens: Usage): string | null {
  const all = tokens.input_tokens + tokens.output_tokens;
  if (all === 0) return null;
  const cost = typeof tokens.cost_usd === "number" ? ` · ${dollars(tokens.cost_usd)}` : "";
  return `${compact.format(all)} tokens${cost}`;
}
