// A run in plain words: the status line for every status, each kind of handoff
// reason as the tracker says it, signal pills and a group's progress.
import { describe, expect, it } from "vitest";
import type { RunStatus } from "../bindings/RunStatus";
import { events, examRun, failedRun, pausedRun, scoringRun } from "./fixtures";
import { emptyRun, fromEvents, type Handoff, type RunView } from "./reducer";
import {
  dollars,
  endWords,
  groupWords,
  handoffLimitWords,
  handoffLine,
  handoffReason,
  runTokens,
  seconds,
  signalPill,
  statusWords,
  tokenCount,
  transfersAllowed,
  usageWords,
} from "./words";

const names: Record<string, string> = { teacher: "Teacher", student: "Student", reporter: "Reporter", triage: "Triage", billing: "Billing", closer: "Closer" };
const name = (id: string) => names[id] ?? id;

function finished(status: RunStatus, extra: Partial<{ error: string; final_agent: string; handoffs: number }> = {}): RunView {
  return fromEvents(
    events([
      { type: "run_started", crew: "Crew", input: "Go" },
      { type: "loop_detected", agents: ["teacher", "student"], repeats: 2 },
      { type: "run_finished", status, final_agent: extra.final_agent ?? "student", error: extra.error ?? null, handoffs: extra.handoffs ?? 4, steps: 5 },
    ]),
  );
}

function handoff(reason: string, more: Partial<Handoff> = {}): Handoff {
  return { kind: "transfer", seq: 1, timestamp: "", from: "teacher", to: "student", reason, handoffCount: 1, signal: null, decision: null, turn: null, edges: [], ...more };
}

describe("statusWords", () => {
  it("says how every run ended, in plain words", () => {
    expect(statusWords(fromEvents(examRun()), name)).toBe("Finished: Teacher said [END_EXAM]");
    expect(statusWords(fromEvents(scoringRun()), name)).toBe("Finished: Closer finished the work");
    expect(statusWords(fromEvents(pausedRun()), name)).toBe("Paused: the crew is waiting for you (Teacher said [WAIT])");
    // (max_handoffs 5 allows 4 transfers: the message names the transfers made.)
    expect(statusWords(finished("max_handoffs", { handoffs: 4 }), name)).toBe("Stopped after 4 transfers, the most this crew allows");
    expect(statusWords(finished("max_handoffs", { handoffs: 1 }), name)).toBe("Stopped after 1 transfer, the most this crew allows");
    expect(statusWords(finished("max_handoffs", { handoffs: 3, error: "max_iterations (3) reached: the router asked for writer" }), name)).toBe(
      "Stopped after 3 routing decisions, the most this crew allows",
    );
    expect(statusWords(finished("no_route"), name)).toBe("Stopped: Student sent no signal and had no one to hand off to");
    expect(statusWords(finished("signal_failure"), name)).toBe("Stopped: Student replied three times without a signal");
    expect(statusWords(finished("loop_detected"), name)).toBe("Stopped: the crew went round in a loop (Teacher → Student → Teacher)");
    expect(statusWords(finished("cancelled"), name)).toBe("Cancelled");
    expect(statusWords(fromEvents(failedRun()), name)).toBe("Failed at Student: provider unavailable. Run again, or choose another model in the Model list.");
    expect(endWords(fromEvents(failedRun()), name)).toBe("Failed at Student: provider unavailable.");
    expect(statusWords(finished("completed"), name)).toBe("Finished: Student finished the work");
    expect(statusWords(finished("terminated"), name)).toBe("Finished: Student ended the run");
  });

  it("while running, says who is working", () => {
    expect(statusWords(emptyRun("run-1"))).toBe("Starting…");
    const all = examRun();
    expect(statusWords(fromEvents(all.slice(0, 2)), name)).toBe("Running: Teacher is working");
    expect(statusWords(fromEvents(all.slice(0, 7)), name)).toBe("Running: Student, Reporter are working");
    expect(statusWords(fromEvents(all.slice(0, 6)), name)).toBe("Running…");
  });

  it("End shows the final status only once the run is over", () => {
    expect(endWords(null)).toBeNull();
    expect(endWords(fromEvents(examRun().slice(0, 10)))).toBeNull();
    expect(endWords(fromEvents(pausedRun()))).toBeNull();
    expect(endWords(fromEvents(examRun()), name)).toBe("Finished: Teacher said [END_EXAM]");
  });
});

describe("handoffReason", () => {
  it("a signal: what the reply said and how it matched", () => {
    const view = fromEvents(examRun());
    expect(handoffLine(view.handoffs[0], name)).toBe("Teacher → exam_round · because the reply said [QUESTION] (exact)");
    expect(handoffReason(handoff("signal [TRẢ_LỜI] (normalized)"))).toBe("because the reply said [TRẢ_LỜI] (ignoring case and spacing)");
  });

  it("the fallback, the scores, the person's choice, the finalizer", () => {
    expect(handoffReason(handoff("no signal matched; fallback to its handoff target"))).toBe("no signal in the reply, so the otherwise arrow (fallback)");
    expect(handoffReason(handoff("no signal matched; fallback to the next agent of the crew"))).toBe(
      "no signal in the reply, so the next agent of the crew (automatic fallback)",
    );
    const view = fromEvents(scoringRun());
    expect(handoffLine(view.handoffs[0], name)).toBe("Triage → Billing · best match (score 7)");
    expect(handoffLine(view.handoffs[1], name)).toBe("Billing → Closer · to write the final answer");
    expect(handoffReason(handoff("requested by the person"))).toBe("you asked for this agent");
    expect(handoffReason(handoff("no specialist scored above 0; finalize"))).toBe("no specialist matched, so the final answer");
  });

  it("a router: its reasoning", () => {
    const decision = { strategy: "llm" as const, candidates: [], chosen: "student", reasoning: "the question needs an answer", tokens: [], seq: 0 };
    expect(handoffReason(handoff("the question needs an answer", { decision }))).toBe("the router: the question needs an answer");
    expect(handoffReason(handoff("ok (confidence 0.9)", { decision: { ...decision, strategy: "gatekeeper", reasoning: null } }))).toBe("the gatekeeper: ok (confidence 0.9)");
  });

  it("a broadcast names every target", () => {
    expect(handoffLine(handoff("signal [ASSIGN] (exact)", { to: "teacher, student" }), name)).toBe("Teacher → Teacher, Student · because the reply said [ASSIGN] (exact)");
  });
});

describe("signalPill and groupWords", () => {
  it("a pill for the signal a reply matched", () => {
    const view = fromEvents(failedRun());
    expect(signalPill(view.turns[0].signal!)).toBe("said [QUESTION] · ignoring case");
  });

  it("a group's progress and time left", () => {
    const view = fromEvents(examRun().slice(0, 10));
    const progress = view.groups.exam_round;
    expect(groupWords(progress)).toBe("1 of 2 done");
    const started = Date.parse(progress.startedAt);
    expect(groupWords(progress, 30_000, started + 18_000)).toBe("1 of 2 done · 12 s left");
    expect(groupWords(progress, 30_000, started - 5_000)).toBe("1 of 2 done · 30 s left");
    expect(groupWords(progress, 30_000, started + 45_000)).toBe("1 of 2 done · 0 s left");
    expect(groupWords({ ...progress, finished: true, timedOut: ["reporter"] }, 30_000, started + 40_000)).toBe("1 of 2 done · 1 ran out of time");
  });
});

describe("what a run cost, in words", () => {
  const tally = { inputTokens: 1234, outputTokens: 321, turns: 3, counted: 3, latencyMs: 4200, costUsd: 0, priced: 0 };

  it("says the totals as the Usage view shows them", () => {
    expect(usageWords(tally)).toBe("1,234 tokens in · 321 out · 4.2 s");
  });

  it("says plainly that Simulate mode spent no tokens, and still says the time", () => {
    expect(usageWords({ ...tally, inputTokens: 0, outputTokens: 0, counted: 0 })).toBe("No tokens spent · 4.2 s");
    expect(usageWords({ ...tally, costUsd: 0.0042, priced: 2 })).toBe("1,234 tokens in · 321 out · $0.0042 · 4.2 s");
    expect([dollars(0), dollars(0.00004), dollars(0.125), dollars(3.456)]).toEqual(["$0", "$0.00004", "$0.13", "$3.46"]);
  });

  it("counts and times readably", () => {
    expect(tokenCount(1234567)).toBe("1,234,567");
    expect(seconds(0)).toBe("0.0 s");
    expect(seconds(59_940)).toBe("59.9 s");
    expect(seconds(65_000)).toBe("1 min 5 s");
    expect(seconds(120_000)).toBe("2 min");
  });

  it("gives a stored run's tokens shortly for the runs list, and nothing for none", () => {
    expect(runTokens({ input_tokens: 1000, output_tokens: 234 })).toBe("1.2K tokens");
    expect(runTokens({ input_tokens: 32, output_tokens: 60 })).toBe("92 tokens");
    expect(runTokens({ input_tokens: 0, output_tokens: 0 })).toBeNull();
    expect(runTokens({ input_tokens: 1000, output_tokens: 234, cost_usd: 0.0012345 })).toBe("1.2K tokens · $0.0012");
  });
});


describe("the tracker's words for every move", () => {
  it("names the group handing back, the move to End and the move to Wait", () => {
    const [, then, , , end] = fromEvents(examRun()).handoffs;
    expect(handoffLine(then, name)).toBe("exam_round → Teacher · then: the group is done and hands the work back");
    expect(handoffLine(end, name)).toBe("Teacher → End · said [END_EXAM], so the run is over");
    const [wait] = fromEvents(pausedRun()).handoffs;
    expect(handoffLine(wait, name)).toBe("Teacher → Wait for you · said [WAIT], so the crew waits for you");
    expect(handoffLine(fromEvents(scoringRun()).handoffs.at(-1)!, name)).toBe("Closer → End · its turn ends the run");
  });

  it("a line signal's payload shows on its line", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Code review", input: "T-42" },
        { type: "agent_started", agent: "developer", step: 1 },
        { type: "agent_response", agent: "developer", content: "Done.\nREADY_FOR_REVIEW: T-42" },
        { type: "signal_matched", agent: "developer", signal: "review-ready", level: "pattern", behavior: "route", target: "critic", payload: "T-42" },
        { type: "handoff", from: "developer", to: "critic", reason: "signal review-ready (pattern)", handoff_count: 1 },
      ]),
    );
    expect(handoffLine(view.handoffs[0], (id) => id)).toBe("developer → critic · because the reply said review-ready: T-42 (by pattern)");
  });

  it("the handoff limit names the transfers it allows", () => {
    expect(transfersAllowed(5)).toBe(4);
    expect(handoffLimitWords(5).help).toBe('A run may pass the work between agents 4 times; one more stops it ("Stopped after 4 transfers").');
    expect(handoffLimitWords(2).help).toMatch(/^A run may pass the work between agents 1 time; /);
  });
});
