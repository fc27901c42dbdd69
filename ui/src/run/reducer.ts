// A run as the window shows it (`RunView`), folded from the run's events by ONE pure
// reducer, `applyRunEvent` (STYLE.md habit 10): the transcript (one entry per agent
// turn, with its streamed text, tools and the signal it matched), each agent's
// state, parallel groups' progress, the handoffs for the tracker, how often each
// arrow was taken, a pause and the person's answers, warnings, and the result.
//
// Events are applied in `seq` order exactly once: an event at or below `lastSeq` is
// a duplicate and ignored; one past a gap waits in `pending` until the gap fills.
// Each turn keeps the tokens its provider reported and how long it took (its
// `agent_response` time less its `agent_started` time), added up per agent and for
// the run in `usage` (the Usage view).
// `fromEvents` replays a stored run, `replayFrames` gives the view after each event
// (step-by-step replay). Nothing here knows about React, zustand or the backend.
//
//     let view = emptyRun("run-1");
//     view = applyRunEvents(view, batch.events);   // a batch from the backend
//     view.turns.at(-1)?.text;                     // what the agent wrote so far
import type { Behavior } from "../bindings/Behavior";
import type { Candidate } from "../bindings/Candidate";
import type { MatchLevel } from "../bindings/MatchLevel";
import type { NearMiss } from "../bindings/NearMiss";
import type { RunEvent } from "../bindings/RunEvent";
import type { RunStatus } from "../bindings/RunStatus";
import type { Strategy } from "../bindings/Strategy";
import type { ToolDecision } from "../bindings/ToolDecision";
import type { Usage } from "../bindings/Usage";

/** One event type of RunEvent, with its run, seq and timestamp. */
export type EventOf<T extends RunEvent["type"]> = Extract<RunEvent, { type: T }>;

/** Where an agent stands in the run. */
export type AgentRunState = "idle" | "active" | "done" | "failed" | "waiting";

/** A tool an agent called, and what came back (null while it runs). */
export type ToolUse = {
  name: string;
  arguments: unknown;
  result: string | null;
  seq: number;
  /** What the tool's server last said of a call still going on (MCP progress). */
  progress?: ToolProgressNote | null;
  /** The call waits for the person to allow it (its tool asks). */
  waiting?: boolean;
  /** The person's answer, when the call asked for one. */
  decision?: ToolDecision | null;
  /** Why, when they said. */
  reason?: string | null;
};

/** A tool call the run waits on: the person allows it or not. */
export type ApprovalWait = {
  agent: string;
  callId: string;
  name: string;
  arguments: unknown;
  seq: number;
};

/** A tool server's word on a call still going on. */
export type ToolProgressNote = { progress: number; total: number | null; message: string | null };

/** A signal found in an agent's reply. */
export type SignalHit = {
  signal: string;
  level: MatchLevel;
  behavior: Behavior;
  /** The agent or group it leads to; null for terminate (and a pause without one). */
  target: string | null;
  payload: string | null;
  seq: number;
};

/** `working` while the reply streams; `stopped` when the run ended (cancelled)
 * before the reply was whole; `timed_out` for a group member the group left behind. */
export type TurnState = "working" | "done" | "failed" | "stopped" | "timed_out";

/** One agent's turn: its reply as it streams, then as it is. */
export type Turn = {
  /** The seq of the event that began it: unique within the run. */
  id: number;
  agent: string;
  step: number;
  /** The parallel group it ran in. */
  group: string | null;
  startedAt: string;
  /** The streamed text (tokens appended); the whole reply once `final`. */
  text: string;
  final: boolean;
  tools: ToolUse[];
  signal: SignalHit | null;
  /** When none of its signals routed the reply: what came close (`route_missed`), best first. */
  missed: NearMiss[];
  state: TurnState;
  /** Why the turn failed (the run's error). */
  error: string | null;
  /** Tokens its provider reported (null: none reported — Simulate mode, or not yet). */
  usage: Usage | null;
  /** From its start to its whole reply, in ms (null until the reply came). */
  latencyMs: number | null;
  /** Its model was asked (at the start, or again after a tool's result) and has
   * written nothing since: at the step pace, the turn waits for Next. */
  asking: boolean;
};

/** What turns cost, added up: tokens as the providers reported them, and time. */
export type UsageTally = {
  inputTokens: number;
  outputTokens: number;
  /** Turns that got their whole reply. */
  turns: number;
  /** Of those, the ones whose provider reported tokens. */
  counted: number;
  /** The turns' times (start to whole reply), added up, in ms. */
  latencyMs: number;
  /** What the priced turns cost, in US dollars (their models' prices, Settings). */
  costUsd: number;
  /** The turns whose cost is known. */
  priced: number;
};

/** Per agent (in the order they first replied) and for the whole run. */
export type RunUsage = { agents: Record<string, UsageTally>; total: UsageTally };

/** A parallel group's progress: who is done, who ran out of time. */
export type GroupProgress = {
  group: string;
  members: string[];
  done: string[];
  timedOut: string[];
  startedAt: string;
  seq: number;
  finished: boolean;
};

/** How a router chose (scoring, llm, gatekeeper). */
export type RoutingChoice = {
  strategy: Strategy;
  candidates: Candidate[];
  chosen: string;
  reasoning: string | null;
  tokens: string[];
  seq: number;
};

/** What a tracker line stands for: a `transfer` (a handoff: a signal, a fallback,
 * a router's choice — what `max_handoffs` counts), a group handing the work back
 * (`then`), the move to End (`end`), or to Wait (`wait`). Only transfers are counted
 * against the crew's limit; the others are moves the graph draws all the same. */
export type MoveKind = "transfer" | "then" | "end" | "wait";

/** One move of the work, for the delegation tracker. */
export type Handoff = {
  kind: MoveKind;
  seq: number;
  timestamp: string;
  from: string;
  /** An agent, a group, or several agents ("a, b") for a broadcast; `end` or
   * `wait` for those moves. */
  to: string;
  /** The engine's words: "signal [QUESTION] (exact)", "best score (7)", … */
  reason: string;
  handoffCount: number;
  /** The signal of the sender's reply that led here. */
  signal: SignalHit | null;
  /** The routing decision that preceded it. */
  decision: RoutingChoice | null;
  /** The sender's turn whose reply led here (its id). */
  turn: number | null;
  /** The arrows taken (edge keys, see `edgeKey`). */
  edges: string[];
};

/** A pause: for the person's answer (after a reply), or before `agent`'s turn
 * (`breakpoint`: a pause the person asked for, going on needs no words). */
export type Pause = { agent: string; signal: string | null; seq: number; timestamp: string; breakpoint?: boolean };
export type Answer = { agent: string; input: string; seq: number; timestamp: string };
export type Notice = { message: string; seq: number; timestamp: string };
export type LoopSeen = { agents: string[]; repeats: number; seq: number };
export type Trim = { agent: string; dropped: number; seq: number };

/** How the run (or this leg of it, for a pause) ended. */
export type RunResult = {
  status: RunStatus;
  finalAgent: string | null;
  error: string | null;
  handoffs: number;
  steps: number;
  seq: number;
  timestamp: string;
  /** The signal that ended it (terminate or pause), when one did. */
  signal: SignalHit | null;
  /** The router's last decision (under llm / gatekeeper: "the work is complete"). */
  decision: RoutingChoice | null;
};

export type RunView = {
  runId: string;
  crew: string;
  input: string;
  startedAt: string | null;
  status: RunStatus;
  /** The seq of the last event applied (-1: none yet). */
  lastSeq: number;
  /** Events that arrived past a gap, in seq order, applied once the gap fills. */
  pending: RunEvent[];
  turns: Turn[];
  agents: Record<string, AgentRunState>;
  groups: Record<string, GroupProgress>;
  handoffs: Handoff[];
  /** How often each arrow was taken, by `edgeKey(from, to)`. */
  edges: Record<string, number>;
  /** The arrows taken last (they pulse once; none when the run hurries, `pulseOf`). */
  pulse: Pulse | null;
  paused: Pause | null;
  answers: Answer[];
  warnings: Notice[];
  loops: LoopSeen[];
  trimmed: Trim[];
  result: RunResult | null;
  /** A routing decision its handoff has not followed yet. */
  decision: RoutingChoice | null;
  /** The group whose members are at work. */
  group: string | null;
  /** The group that just finished: the next agent to start was sent by it. */
  afterGroup: string | null;
  /** Tokens and time, per agent and for the run. */
  usage: RunUsage;
  /** The tool call the run waits on, until the person answers. */
  approval: ApprovalWait | null;
  /** The agents the run pauses before (`breakpoints_set`). */
  breakpoints: string[];
};

/** The arrows taken at event `seq` (at `at`, ms since the epoch, the event's
 * time), which pulse once: none (`keys` empty) when taken in a hurry (`pulseOf`). */
export type Pulse = { keys: string[]; seq: number; at: number };

/** An arrow taken this soon (ms, by the events' times) after the one before it does
 * not pulse: in a fast run the arrows would pulse all the time, each pulse painted
 * again at every frame (BENCHMARKS.md, "The window without a GPU"), faster than
 * anyone can follow. Their counts still go up. */
export const PULSE_CALM_MS = 300;

/** The pulse of arrows `keys` taken at `event`; none when the arrow before was
 * taken less than PULSE_CALM_MS earlier, unless `always` (the run's end). */
function pulseOf(s: RunView, keys: string[], event: { seq: number; timestamp: string }, always = false): Pulse {
  const at = Date.parse(event.timestamp);
  const hurried = !always && s.pulse !== null && at - s.pulse.at < PULSE_CALM_MS;
  return { keys: hurried ? [] : keys, seq: event.seq, at };
}

/** The key of an arrow in `RunView.edges`: ids without their `agent:` / `group:`
 * prefix, and `end`, `wait`, `router` for those nodes. */
export function edgeKey(from: string, to: string): string {
  return `${from}→${to}`;
}

/** A run of which nothing is known yet ("" until its first event names it). */
export function emptyRun(runId = ""): RunView {
  return {
    runId,
    crew: "",
    input: "",
    startedAt: null,
    status: "running",
    lastSeq: -1,
    pending: [],
    turns: [],
    agents: {},
    groups: {},
    handoffs: [],
    edges: {},
    pulse: null,
    paused: null,
    answers: [],
    warnings: [],
    loops: [],
    trimmed: [],
    result: null,
    decision: null,
    group: null,
    afterGroup: null,
    usage: { agents: {}, total: noUsage },
    approval: null,
    breakpoints: [],
  };
}

const noUsage: UsageTally = { inputTokens: 0, outputTokens: 0, turns: 0, counted: 0, latencyMs: 0, costUsd: 0, priced: 0 };

/** Applies one event: in seq order, once; an event of another run is ignored. */
export function applyRunEvent(state: RunView, event: RunEvent): RunView {
  if (state.runId && event.run_id !== state.runId) return state;
  if (event.seq <= state.lastSeq) return state;
  const run = state.runId ? state : { ...state, runId: event.run_id };
  if (event.seq > run.lastSeq + 1) {
    if (run.pending.some((e) => e.seq === event.seq)) return run;
    const pending = [...run.pending, event].sort((a, b) => a.seq - b.seq);
    return { ...run, pending };
  }
  let next = fold(run, event);
  while (next.pending.length > 0 && next.pending[0].seq <= next.lastSeq + 1) {
    const [first, ...rest] = next.pending;
    const without = { ...next, pending: rest };
    next = first.seq === next.lastSeq + 1 ? fold(without, first) : without;
  }
  return next;
}

/** Applies events in turn (a batch, or a catch-up). */
export function applyRunEvents(state: RunView, events: readonly RunEvent[]): RunView {
  let next = state;
  for (const event of events) next = applyRunEvent(next, event);
  return next;
}

/** A run from its stored events. */
export function fromEvents(events: readonly RunEvent[]): RunView {
  return applyRunEvents(emptyRun(events[0]?.run_id ?? ""), events);
}

/** The view after each event: frame i shows the run after events[0..=i]. */
export function replayFrames(events: readonly RunEvent[]): RunView[] {
  const frames: RunView[] = [];
  let view = emptyRun(events[0]?.run_id ?? "");
  for (const event of events) {
    view = applyRunEvent(view, event);
    frames.push(view);
  }
  return frames;
}

/** The agent's latest turn (that is still streaming, with `working`). */
export function latestTurn(view: RunView, agent: string, working = false): Turn | null {
  for (let i = view.turns.length - 1; i >= 0; i--) {
    const turn = view.turns[i];
    if (turn.agent === agent && (!working || turn.state === "working")) return turn;
  }
  return null;
}

/** The tool `agent` is using now, if any: the first call of its working turn
 * without a result, and whether it waits for the person to allow it. */
export function toolAtWork(view: RunView | null, agent: string | undefined): { name: string; waiting: boolean } | null {
  if (!view || !agent) return null;
  const turn = latestTurn(view, agent, true);
  const tool = turn?.tools.find((t) => t.result === null);
  return tool ? { name: tool.name, waiting: tool.waiting === true } : null;
}

/** The agents at work now. */
export function activeAgents(view: RunView): string[] {
  return Object.keys(view.agents).filter((id) => view.agents[id] === "active");
}

// ---- the reducer proper: one event, in order ----

function fold(state: RunView, event: RunEvent): RunView {
  const s: RunView = { ...state, lastSeq: event.seq };
  switch (event.type) {
    case "run_started":
      return { ...s, crew: event.crew, input: event.input, startedAt: event.timestamp, status: "running" };
    case "agent_started":
      return agentStarted(s, event);
    case "token":
      return updateTurn(s, event, (turn) => ({ ...turn, text: turn.text + event.text, asking: false }));
    case "tool_call":
      return updateTurn(s, event, (turn) => ({
        ...turn,
        tools: [...turn.tools, { name: event.name, arguments: event.arguments, result: null, seq: event.seq }],
        asking: false,
      }));
    case "tool_approval_requested": {
      const approval: ApprovalWait = { agent: event.agent, callId: event.call_id, name: event.name, arguments: event.arguments, seq: event.seq };
      const waiting = updateTurn(s, event, (turn) => ({ ...turn, tools: onFirstOpen(turn.tools, event.name, (tool) => ({ ...tool, waiting: true })) }));
      return { ...waiting, approval, agents: { ...waiting.agents, [event.agent]: "waiting" } };
    }
    case "tool_approval": {
      const asked = s.approval?.callId === event.call_id ? s.approval : null;
      if (!asked) return s;
      const decided = updateTurn({ ...s, approval: null }, { ...event, agent: asked.agent }, (turn) => ({
        ...turn,
        tools: onFirstOpen(turn.tools, asked.name, (tool) => ({ ...tool, waiting: false, decision: event.decision, reason: event.reason ?? null })),
      }));
      return { ...decided, agents: { ...decided.agents, [asked.agent]: "active" } };
    }
    case "tool_progress":
      return updateTurn(s, event, (turn) => ({ ...turn, tools: withProgress(turn.tools, event) }));
    case "tool_result":
      // (Its model is asked again, with the result.)
      return updateTurn(s, event, (turn) => ({ ...turn, tools: withResult(turn.tools, event), asking: true }));
    case "agent_response":
      return agentResponse(s, event);
    case "signal_matched": {
      const turn = latestTurn(s, event.agent);
      if (!turn) return s;
      const signal: SignalHit = {
        signal: event.signal,
        level: event.level,
        behavior: event.behavior,
        target: event.target,
        payload: event.payload ?? null,
        seq: event.seq,
      };
      return { ...s, turns: replaceTurn(s.turns, { ...turn, signal }) };
    }
    case "route_missed": {
      const turn = latestTurn(s, event.agent);
      return turn ? { ...s, turns: replaceTurn(s.turns, { ...turn, missed: event.candidates }) } : s;
    }
    case "handoff":
      return handoff(s, event);
    case "routing_decision":
      return {
        ...s,
        decision: {
          strategy: event.strategy,
          candidates: event.candidates ?? [],
          chosen: event.chosen,
          reasoning: event.reasoning ?? null,
          tokens: event.tokens ?? [],
          seq: event.seq,
        },
      };
    case "parallel_started": {
      const agents = { ...s.agents };
      for (const member of event.agents) agents[member] = "active";
      const progress: GroupProgress = {
        group: event.group,
        members: event.agents,
        done: [],
        timedOut: [],
        startedAt: event.timestamp,
        seq: event.seq,
        finished: false,
      };
      return { ...s, agents, group: event.group, groups: { ...s.groups, [event.group]: progress } };
    }
    case "parallel_finished":
      return parallelFinished(s, event);
    case "history_trimmed":
      return { ...s, trimmed: [...s.trimmed, { agent: event.agent, dropped: event.dropped, seq: event.seq }] };
    case "breakpoints_set":
      return { ...s, breakpoints: event.agents };
    case "paused": {
      if (event.breakpoint) {
        // Before the agent's turn: no arrow was taken.
        const paused = { agent: event.agent, signal: null, seq: event.seq, timestamp: event.timestamp, breakpoint: true };
        return { ...s, paused, agents: { ...s.agents, [event.agent]: "waiting" } };
      }
      const key = edgeKey(event.agent, "wait");
      const turn = latestTurn(s, event.agent);
      const signal = turn?.signal?.behavior === "pause" ? turn.signal : null;
      const move = moveRecord(s, "wait", event, event.agent, "wait", signal?.signal ?? event.signal ?? "", signal, turn?.id ?? null, [key]);
      return {
        ...s,
        handoffs: [...s.handoffs, move],
        paused: { agent: event.agent, signal: event.signal ?? null, seq: event.seq, timestamp: event.timestamp },
        agents: { ...s.agents, [event.agent]: "waiting" },
        edges: bump(s.edges, [key]),
        pulse: pulseOf(s, [key], event),
      };
    }
    case "resumed": {
      const agents = { ...s.agents };
      for (const id of Object.keys(agents)) if (agents[id] === "waiting") agents[id] = "done";
      return {
        ...s,
        status: "running",
        result: null,
        paused: null,
        agents,
        // An empty input is no answer: the run went on after an approval, or from
        // where it was interrupted (a paused run is only resumed with words).
        answers: event.input === "" ? s.answers : [...s.answers, { agent: event.agent, input: event.input, seq: event.seq, timestamp: event.timestamp }],
      };
    }
    case "warning":
      return { ...s, warnings: [...s.warnings, { message: event.message, seq: event.seq, timestamp: event.timestamp }] };
    case "loop_detected":
      return { ...s, loops: [...s.loops, { agents: event.agents, repeats: event.repeats, seq: event.seq }] };
    case "run_finished":
      return runFinished(s, event);
  }
}

function agentStarted(s: RunView, event: EventOf<"agent_started">): RunView {
  const inGroup = s.group !== null && (s.groups[s.group]?.members.includes(event.agent) ?? false);
  const turn = newTurn(event.seq, event.agent, event.step, inGroup ? s.group : null, event.timestamp);
  let { edges, pulse, afterGroup } = s;
  // The work came back from a group (its "then" arrow): counted as the agent starts.
  let handoffs = s.handoffs;
  if (!inGroup && afterGroup) {
    const key = edgeKey(afterGroup, event.agent);
    edges = bump(edges, [key]);
    pulse = pulseOf(s, [key], event);
    handoffs = [...handoffs, moveRecord(s, "then", event, afterGroup, event.agent, "then", null, null, [key])];
    afterGroup = null;
  }
  return {
    ...s,
    handoffs,
    turns: [...s.turns, turn],
    agents: { ...s.agents, [event.agent]: "active" },
    edges,
    pulse,
    afterGroup,
    decision: null,
  };
}

function agentResponse(s: RunView, event: EventOf<"agent_response">): RunView {
  const usage = event.usage ?? null;
  const next = updateTurn(s, event, (turn) => ({
    ...turn,
    text: event.content,
    final: true,
    state: "done",
    asking: false,
    usage,
    latencyMs: between(turn.startedAt, event.timestamp),
  }));
  const turn = latestTurn(next, event.agent);
  let groups = next.groups;
  const group = turn?.group ? groups[turn.group] : undefined;
  if (group && !group.done.includes(event.agent)) {
    groups = { ...groups, [group.group]: { ...group, done: [...group.done, event.agent] } };
  }
  return {
    ...next,
    groups,
    agents: { ...next.agents, [event.agent]: "done" },
    usage: turn ? tallied(next.usage, turn) : next.usage,
  };
}

/** ms from one timestamp to a later one (0 when they cannot be read). */
function between(from: string, to: string): number {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/** The run's usage with a finished turn added to its agent's and to the total. */
function tallied(usage: RunUsage, turn: Turn): RunUsage {
  const add = (tally: UsageTally): UsageTally => ({
    inputTokens: tally.inputTokens + (turn.usage?.input_tokens ?? 0),
    outputTokens: tally.outputTokens + (turn.usage?.output_tokens ?? 0),
    turns: tally.turns + 1,
    counted: tally.counted + (turn.usage ? 1 : 0),
    latencyMs: tally.latencyMs + (turn.latencyMs ?? 0),
    costUsd: tally.costUsd + (turn.usage?.cost_usd ?? 0),
    priced: tally.priced + (typeof turn.usage?.cost_usd === "number" ? 1 : 0),
  });
  return { agents: { ...usage.agents, [turn.agent]: add(usage.agents[turn.agent] ?? noUsage) }, total: add(usage.total) };
}

/** Under a router: the entry point's arrow to the router when `agent` — whose turn
 * the router has just decided after — is the entry point (the run's first turn). */
function asked(s: RunView, agent: string): string[] {
  return agent !== "" && s.turns[0]?.agent === agent ? [edgeKey(agent, "router")] : [];
}

function handoff(s: RunView, event: EventOf<"handoff">): RunView {
  const turn = latestTurn(s, event.from);
  const decision = s.decision;
  const routed = decision !== null && (decision.strategy === "llm" || decision.strategy === "gatekeeper");
  // A broadcast goes to several agents at once ("a, b"); a router's choice is drawn
  // as the router's arrow to the agent (after the entry point's arrow to the router,
  // when the choice follows its turn).
  const targets = event.to.split(", ").filter(Boolean);
  const keys = [...(routed ? asked(s, event.from) : []), ...targets.map((to) => edgeKey(routed ? "router" : event.from, to))];
  const record: Handoff = {
    kind: "transfer",
    seq: event.seq,
    timestamp: event.timestamp,
    from: event.from,
    to: event.to,
    reason: event.reason,
    handoffCount: event.handoff_count,
    signal: turn?.signal ?? null,
    decision,
    turn: turn?.id ?? null,
    edges: keys,
  };
  return {
    ...s,
    handoffs: [...s.handoffs, record],
    edges: bump(s.edges, keys),
    pulse: pulseOf(s, keys, event),
    decision: null,
  };
}

function parallelFinished(s: RunView, event: EventOf<"parallel_finished">): RunView {
  const before = s.groups[event.group];
  const progress: GroupProgress = {
    group: event.group,
    members: before?.members ?? [...event.finished, ...event.timed_out],
    done: event.finished,
    timedOut: event.timed_out,
    startedAt: before?.startedAt ?? event.timestamp,
    seq: before?.seq ?? event.seq,
    finished: true,
  };
  const agents = { ...s.agents };
  const turns = s.turns.map((turn) => {
    if (turn.state !== "working" || turn.group !== event.group || !event.timed_out.includes(turn.agent)) return turn;
    agents[turn.agent] = "idle";
    return { ...turn, state: "timed_out" as const };
  });
  // Members still lit (cancelled alongside a failed one) go dark.
  for (const member of progress.members) if (agents[member] === "active") agents[member] = "idle";
  return { ...s, turns, agents, groups: { ...s.groups, [event.group]: progress }, group: null, afterGroup: event.group };
}

function runFinished(s: RunView, event: EventOf<"run_finished">): RunView {
  const error = event.error ?? null;
  const final = event.final_agent;
  const finalTurn = final ? latestTurn(s, final) : null;
  const signal = finalTurn?.signal && (finalTurn.signal.behavior === "terminate" || finalTurn.signal.behavior === "pause") ? finalTurn.signal : null;
  const routed = s.decision !== null && (s.decision.strategy === "llm" || s.decision.strategy === "gatekeeper");

  let keys: string[] = [];
  if (event.status === "terminated" && final && signal?.behavior === "terminate") keys = [edgeKey(final, "end")];
  if (event.status === "completed") keys = routed ? [...asked(s, final ?? ""), edgeKey("router", "end")] : [edgeKey(final ?? "", "end")];
  // The move to End, on the tracker: what ended it (a signal, the router, the last agent).
  const ending = keys.length > 0 && (final || routed);
  const endReason = signal ? signal.signal : routed ? "the work is done" : "finished the work";
  const endMove = ending ? moveRecord(s, "end", event, routed ? "router" : (final ?? ""), "end", endReason, signal, finalTurn?.id ?? null, keys) : null;

  const agents = { ...s.agents };
  let turns = s.turns;
  if (event.status !== "paused") {
    // The turn to blame for a failure: one still streaming, or a member the group
    // just left behind, named in the error if it can be told; else the latest.
    const open = turns.filter((t) => t.state === "working" || (s.afterGroup !== null && t.group === s.afterGroup && t.state === "timed_out"));
    const blamed =
      event.status === "failed"
        ? (open.find((t) => error?.includes(`'${t.agent}'`)) ?? open.filter((t) => t.state === "working").at(-1) ?? null)
        : null;
    turns = turns.map((turn) => {
      if (turn === blamed) {
        agents[turn.agent] = "failed";
        return { ...turn, state: "failed" as const, error };
      }
      if (turn.state === "working") return { ...turn, state: "stopped" as const };
      return turn;
    });
    for (const id of Object.keys(agents)) if (agents[id] === "active") agents[id] = "idle";
  }
  const result: RunResult = {
    status: event.status,
    finalAgent: final,
    error,
    handoffs: event.handoffs,
    steps: event.steps,
    seq: event.seq,
    timestamp: event.timestamp,
    signal,
    decision: s.decision,
  };
  return {
    ...s,
    handoffs: endMove ? [...s.handoffs, { ...endMove, decision: routed ? s.decision : null }] : s.handoffs,
    status: event.status,
    result,
    turns,
    agents,
    edges: keys.length ? bump(s.edges, keys) : s.edges,
    pulse: keys.length ? pulseOf(s, keys, event, true) : s.pulse,
    decision: null,
    group: null,
    afterGroup: null,
  };
}

// ---- helpers ----

/** A tracker line for a move that is not a transfer (then, end, wait). */
function moveRecord(
  s: RunView,
  kind: MoveKind,
  event: RunEvent,
  from: string,
  to: string,
  reason: string,
  signal: SignalHit | null,
  turn: number | null,
  edges: string[],
): Handoff {
  const handoffCount = s.handoffs.filter((h) => h.kind === "transfer").at(-1)?.handoffCount ?? 0;
  return { kind, seq: event.seq, timestamp: event.timestamp, from, to, reason, handoffCount, signal, decision: null, turn, edges };
}

function newTurn(id: number, agent: string, step: number, group: string | null, startedAt: string): Turn {
  return { id, agent, step, group, startedAt, text: "", final: false, tools: [], signal: null, missed: [], state: "working", error: null, usage: null, latencyMs: null, asking: true };
}

/** Changes the agent's streaming turn (one is begun when none is: an event whose
 * `agent_started` was never seen). */
function updateTurn(s: RunView, event: RunEvent & { agent: string }, change: (turn: Turn) => Turn): RunView {
  const turn = latestTurn(s, event.agent, true);
  if (turn) return { ...s, turns: replaceTurn(s.turns, change(turn)) };
  const begun = newTurn(event.seq, event.agent, 0, null, event.timestamp);
  return { ...s, turns: [...s.turns, change(begun)], agents: { ...s.agents, [event.agent]: "active" } };
}

/** `turns` with `turn` in place of the one of its id. Looked for from the end: the
 * turn an event changes is nearly always one of the last (a long run has thousands). */
function replaceTurn(turns: Turn[], turn: Turn): Turn[] {
  let at = turns.length - 1;
  while (at >= 0 && turns[at].id !== turn.id) at--;
  if (at < 0) return turns;
  const next = turns.slice();
  next[at] = turn;
  return next;
}

/** `change` applied to the first call of tool `name` without a result. */
function onFirstOpen(tools: ToolUse[], name: string, change: (tool: ToolUse) => ToolUse): ToolUse[] {
  const at = tools.findIndex((tool) => tool.name === name && tool.result === null);
  if (at < 0) return tools;
  const next = tools.slice();
  next[at] = change(tools[at]);
  return next;
}

/** What the server said of the tool's call going on (its first without a result). */
function withProgress(tools: ToolUse[], event: EventOf<"tool_progress">): ToolUse[] {
  for (let i = 0; i < tools.length; i++) {
    if (tools[i].name === event.name && tools[i].result === null) {
      const next = tools.slice();
      next[i] = { ...tools[i], progress: { progress: event.progress, total: event.total ?? null, message: event.message ?? null } };
      return next;
    }
  }
  return tools;
}

/** The tool's result on its first call still waiting for one (a reply's calls are
 * announced together, then answered in order). */
function withResult(tools: ToolUse[], event: EventOf<"tool_result">): ToolUse[] {
  for (let i = 0; i < tools.length; i++) {
    if (tools[i].name === event.name && tools[i].result === null) {
      const next = tools.slice();
      next[i] = { ...tools[i], result: event.result };
      return next;
    }
  }
  return [...tools, { name: event.name, arguments: null, result: event.result, seq: event.seq }];
}

function bump(edges: Record<string, number>, keys: string[]): Record<string, number> {
  const next = { ...edges };
  for (const key of keys) next[key] = (next[key] ?? 0) + 1;
  return next;
}
