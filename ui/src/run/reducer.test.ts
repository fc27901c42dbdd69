// The run reducer against the engine's own traces: every event type, duplicates and
// gaps, catch-up, a pause and its answer, a failure mid-stream, a parallel group.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../bindings/RunEvent";
import { examRun, events, failedRun, paced, pausedRun, resumedLeg, scoringRun } from "./fixtures";
import { applyRunEvent, applyRunEvents, edgeKey, emptyRun, fromEvents, PULSE_CALM_MS, replayFrames, type RunView, toolAtWork } from "./reducer";

const upTo = (all: RunEvent[], seq: number) => all.filter((e) => e.seq <= seq);
const at = (seq: number) => fromEvents(upTo(examRun(), seq));

describe("applyRunEvent: each event type", () => {
  it("run_started names the crew and the request", () => {
    const view = at(0);
    expect(view).toMatchObject({ runId: "run-1", crew: "Fractions exam", input: "Begin.", status: "running", lastSeq: 0 });
    expect(view.startedAt).toBe("2026-11-28T10:00:00.001Z");
  });

  it("agent_started begins a turn and lights the agent", () => {
    const view = at(1);
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]).toMatchObject({ id: 1, agent: "teacher", step: 1, text: "", state: "working", group: null });
    expect(view.agents).toEqual({ teacher: "active" });
  });

  it("token appends to the streaming turn; agent_response replaces it with the whole reply", () => {
    const streaming = applyRunEvents(at(1), events([{ type: "token", agent: "teacher", text: "Question 1" }, { type: "token", agent: "teacher", text: ": what" }], "run-1", 2));
    expect(streaming.turns[0].text).toBe("Question 1: what");
    expect(streaming.turns[0].final).toBe(false);
    // The reply as the engine kept it wins over what streamed (here it differs on purpose).
    const done = applyRunEvent(streaming, events([{ type: "agent_response", agent: "teacher", content: "Question 1: what is 1/2 + 1/4? [QUESTION]" }], "run-1", 4)[0]);
    expect(done.turns[0]).toMatchObject({ text: "Question 1: what is 1/2 + 1/4? [QUESTION]", final: true, state: "done" });
    expect(done.agents.teacher).toBe("done");
  });

  it("tool_call and tool_result pair up on the turn, and streaming goes on after them", () => {
    const view = at(14);
    const reporter = view.turns.find((t) => t.agent === "reporter")!;
    expect(reporter.tools).toEqual([{ name: "calculator", arguments: { expression: "1/2 + 1/4" }, result: "0.75", seq: 12 }]);
    expect(reporter.text).toBe("Let me check.0.75 is 3/4: right. Score: 1/1");
    expect(at(12).turns.find((t) => t.agent === "reporter")!.tools[0].result).toBeNull();
  });

  it("tool_progress goes on the call still going on, and its result ends it", () => {
    const asked = applyRunEvents(
      at(1),
      events(
        [
          { type: "tool_call", agent: "teacher", name: "files.read_text_file", arguments: { path: "a.md" } },
          { type: "tool_progress", agent: "teacher", name: "files.read_text_file", progress: 2, total: 5 },
          { type: "tool_progress", agent: "teacher", name: "files.read_text_file", progress: 3, total: 5, message: "reading" },
        ],
        "run-1",
        2,
      ),
    );
    expect(asked.turns[0].tools[0].progress).toEqual({ progress: 3, total: 5, message: "reading" });
    const answered = applyRunEvent(asked, events([{ type: "tool_result", agent: "teacher", name: "files.read_text_file", result: "hello" }], "run-1", 5)[0]);
    expect(answered.turns[0].tools[0]).toMatchObject({ result: "hello", seq: 2 });
    // Progress for a call that has its answer already changes nothing.
    const late = applyRunEvent(answered, events([{ type: "tool_progress", agent: "teacher", name: "files.read_text_file", progress: 5 }], "run-1", 6)[0]);
    expect(late.turns[0].tools).toEqual(answered.turns[0].tools);
  });

  it("a card knows the tool its agent is using, or waits for the person to allow", () => {
    const using = applyRunEvents(at(1), events([{ type: "tool_call", agent: "teacher", name: "files.write_file", arguments: {} }], "run-1", 2));
    expect(toolAtWork(using, "teacher")).toEqual({ name: "files.write_file", waiting: false });
    expect(toolAtWork(using, "student")).toBeNull();
    const waiting = applyRunEvent(using, events([{ type: "tool_approval_requested", agent: "teacher", call_id: "call-1-0", name: "files.write_file", arguments: {} }], "run-1", 3)[0]);
    expect(toolAtWork(waiting, "teacher")).toEqual({ name: "files.write_file", waiting: true });
    expect(waiting.approval).toMatchObject({ callId: "call-1-0", agent: "teacher" });
    expect(waiting.agents.teacher).toBe("waiting");
    const allowed = applyRunEvent(waiting, events([{ type: "tool_approval", call_id: "call-1-0", decision: "allow_once" }], "run-1", 4)[0]);
    expect(allowed.approval).toBeNull();
    expect(allowed.turns[0].tools[0]).toMatchObject({ waiting: false, decision: "allow_once" });
    // The run goes on: no answer of the person's is made up from the empty input.
    const going = applyRunEvent(allowed, events([{ type: "resumed", agent: "teacher", input: "" }], "run-1", 5)[0]);
    expect(going.status).toBe("running");
    expect(going.answers).toEqual([]);
    const done = applyRunEvent(allowed, events([{ type: "tool_result", agent: "teacher", name: "files.write_file", result: "ok" }], "run-1", 5)[0]);
    expect(toolAtWork(done, "teacher")).toBeNull();
  });

  it("a pause before an agent's turn takes no arrow and says so", () => {
    const set = applyRunEvent(at(1), events([{ type: "breakpoints_set", agents: ["student"] }], "run-1", 2)[0]);
    expect(set.breakpoints).toEqual(["student"]);
    const held = applyRunEvent(set, events([{ type: "paused", agent: "student", breakpoint: true }], "run-1", 3)[0]);
    expect(held.paused).toMatchObject({ agent: "student", breakpoint: true });
    expect(held.handoffs).toEqual(set.handoffs);
    expect(held.edges).toEqual(set.edges);
    expect(held.agents.student).toBe("waiting");
  });

  it("signal_matched goes on the turn whose reply matched", () => {
    const view = at(4);
    expect(view.turns[0].signal).toEqual({ signal: "[QUESTION]", level: "exact", behavior: "parallel", target: "exam_round", payload: null, seq: 4 });
  });

  it("handoff adds a tracker line with the signal that led to it, counts the arrow and pulses it", () => {
    const view = at(5);
    expect(view.handoffs).toHaveLength(1);
    expect(view.handoffs[0]).toMatchObject({
      from: "teacher",
      to: "exam_round",
      reason: "signal [QUESTION] (exact)",
      handoffCount: 1,
      seq: 5,
      timestamp: "2026-11-28T10:00:00.006Z",
      turn: 1,
      decision: null,
      edges: ["teacher→exam_round"],
    });
    expect(view.handoffs[0].signal?.signal).toBe("[QUESTION]");
    expect(view.edges).toEqual({ "teacher→exam_round": 1 });
    expect(view.pulse).toEqual({ keys: ["teacher→exam_round"], seq: 5, at: Date.parse("2026-11-28T10:00:00.006Z") });
  });

  it("routing_decision is kept with the handoff that follows it (scoring)", () => {
    const view = fromEvents(scoringRun());
    expect(view.handoffs[0].decision).toMatchObject({ strategy: "scoring", chosen: "billing", candidates: [{ agent: "billing", score: 7 }, { agent: "tech", score: 1 }] });
    expect(view.handoffs[1].decision).toBeNull();
    expect(view.edges).toEqual({ "triage→billing": 1, "billing→closer": 1, "closer→end": 1 });
    expect(view.decision).toBeNull();
  });

  it("a router's choice (llm) is drawn on the router's arrow, and its 'complete' on router → End", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Research", input: "Find out" },
        { type: "agent_started", agent: "researcher", step: 1 },
        { type: "agent_response", agent: "researcher", content: "Notes." },
        { type: "routing_decision", strategy: "llm", chosen: "writer", reasoning: "the notes are ready for writing" },
        { type: "handoff", from: "researcher", to: "writer", reason: "the notes are ready for writing", handoff_count: 1 },
        { type: "agent_started", agent: "writer", step: 2 },
        { type: "agent_response", agent: "writer", content: "Draft." },
        { type: "routing_decision", strategy: "llm", chosen: "complete", reasoning: "done" },
        { type: "run_finished", status: "completed", final_agent: "writer", handoffs: 1, steps: 2 },
      ]),
    );
    expect(view.edges).toEqual({ "researcher→router": 1, "router→writer": 1, "router→end": 1 });
    expect(view.handoffs[0].edges).toEqual(["researcher→router", "router→writer"]);
    expect(view.handoffs[0].decision?.reasoning).toBe("the notes are ready for writing");
    expect(view.result?.decision?.chosen).toBe("complete");
  });

  it("a router that completes the work after the entry point's turn lights the entry point's arrow to it, then router → End", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Desk", input: "Hi" },
        { type: "agent_started", agent: "lead", step: 1 },
        { type: "agent_response", agent: "lead", content: "Hello." },
        { type: "routing_decision", strategy: "gatekeeper", chosen: "complete", reasoning: "nothing to do" },
        { type: "run_finished", status: "completed", final_agent: "lead", handoffs: 0, steps: 1 },
      ]),
    );
    expect(view.edges).toEqual({ "lead→router": 1, "router→end": 1 });
  });

  it("a broadcast counts an arrow to each target", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Newsroom", input: "News" },
        { type: "agent_started", agent: "editor", step: 1 },
        { type: "agent_response", agent: "editor", content: "Write it up [ASSIGN]" },
        { type: "signal_matched", agent: "editor", signal: "[ASSIGN]", level: "exact", behavior: "broadcast", target: "writer_a, writer_b" },
        { type: "handoff", from: "editor", to: "writer_a, writer_b", reason: "signal [ASSIGN] (exact)", handoff_count: 1 },
      ]),
    );
    expect(view.edges).toEqual({ "editor→writer_a": 1, "editor→writer_b": 1 });
    expect(view.pulse?.keys).toEqual(["editor→writer_a", "editor→writer_b"]);
  });

  it("parallel_started lights every member at once and starts the group's progress", () => {
    const view = at(6);
    expect(view.agents).toEqual({ teacher: "done", student: "active", reporter: "active" });
    expect(view.groups.exam_round).toMatchObject({ members: ["student", "reporter"], done: [], timedOut: [], finished: false, startedAt: "2026-11-28T10:00:00.007Z" });
    expect(view.group).toBe("exam_round");
  });

  it("parallel group progress: members done one by one, their turns marked as the group's", () => {
    expect(at(9).groups.exam_round.done).toEqual(["student"]);
    expect(at(9).agents).toMatchObject({ student: "done", reporter: "active" });
    expect(at(15).groups.exam_round.done).toEqual(["student", "reporter"]);
    expect(at(15).turns.filter((t) => t.group === "exam_round").map((t) => t.agent)).toEqual(["student", "reporter"]);
    const finished = at(16);
    expect(finished.groups.exam_round.finished).toBe(true);
    expect(finished.group).toBeNull();
    expect(finished.afterGroup).toBe("exam_round");
  });

  it("the work coming back from a group counts the group's 'then' arrow when the next agent starts", () => {
    expect(at(16).edges).toEqual({ "teacher→exam_round": 1 });
    const back = at(17);
    expect(back.edges).toEqual({ "teacher→exam_round": 1, "exam_round→teacher": 1 });
    expect(fromEvents(paced(upTo(examRun(), 17))).pulse).toMatchObject({ keys: ["exam_round→teacher"], seq: 17 });
    expect(back.turns.at(-1)?.group).toBeNull();
  });

  it("an arrow taken in a hurry (within PULSE_CALM_MS of the one before) counts but does not pulse; the end always does", () => {
    const pingPong = (ms: number) =>
      paced(
        events([
          { type: "run_started", crew: "Speed", input: "Go" },
          { type: "handoff", from: "ping", to: "pong", reason: "no signal", handoff_count: 1 },
          { type: "handoff", from: "pong", to: "ping", reason: "no signal", handoff_count: 2 },
          { type: "handoff", from: "ping", to: "pong", reason: "no signal", handoff_count: 3 },
          { type: "run_finished", status: "completed", final_agent: "pong", handoffs: 3, steps: 3 },
        ]),
        ms,
      );
    const hurried = pingPong(PULSE_CALM_MS / 10);
    expect(fromEvents(hurried.slice(0, 2)).pulse?.keys).toEqual(["ping→pong"]); // the first is never in a hurry
    expect(fromEvents(hurried.slice(0, 3)).pulse?.keys).toEqual([]);
    expect(fromEvents(hurried.slice(0, 4)).edges).toEqual({ "ping→pong": 2, "pong→ping": 1 });
    expect(fromEvents(hurried.slice(0, 4)).pulse?.keys).toEqual([]);
    expect(fromEvents(hurried).pulse?.keys).toEqual(["pong→end"]);
    const calm = pingPong(PULSE_CALM_MS);
    expect(fromEvents(calm.slice(0, 3)).pulse?.keys).toEqual(["pong→ping"]);
    expect(fromEvents(calm.slice(0, 4)).pulse?.keys).toEqual(["ping→pong"]);
  });

  it("a member the group left behind (wait_for_all: false) is marked as out of time, not failed", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Fractions exam", input: "Begin." },
        { type: "parallel_started", group: "exam_round", agents: ["student", "reporter"] },
        { type: "agent_started", agent: "student", step: 1 },
        { type: "agent_started", agent: "reporter", step: 2 },
        { type: "token", agent: "reporter", text: "Scoring" },
        { type: "agent_response", agent: "student", content: "3/4" },
        { type: "parallel_finished", group: "exam_round", finished: ["student"], timed_out: ["reporter"] },
      ]),
    );
    expect(view.groups.exam_round).toMatchObject({ done: ["student"], timedOut: ["reporter"], finished: true });
    expect(view.turns.find((t) => t.agent === "reporter")).toMatchObject({ state: "timed_out", text: "Scoring", error: null });
    expect(view.agents).toEqual({ student: "done", reporter: "idle" });
  });

  it("history_trimmed, warning and loop_detected are kept", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Loop", input: "Go" },
        { type: "history_trimmed", agent: "writer", dropped: 4 },
        { type: "warning", message: "unknown tool 'search'" },
        { type: "loop_detected", agents: ["writer", "editor"], repeats: 2 },
        { type: "run_finished", status: "loop_detected", final_agent: "editor", handoffs: 4, steps: 5 },
      ]),
    );
    expect(view.trimmed).toEqual([{ agent: "writer", dropped: 4, seq: 1 }]);
    expect(view.warnings).toEqual([{ message: "unknown tool 'search'", seq: 2, timestamp: "2026-11-28T10:00:00.003Z" }]);
    expect(view.loops).toEqual([{ agents: ["writer", "editor"], repeats: 2, seq: 3 }]);
    expect(view.status).toBe("loop_detected");
  });

  it("run_finished (terminated) keeps the result with the signal that ended it and counts the arrow to End", () => {
    const view = fromEvents(examRun());
    expect(view.status).toBe("terminated");
    expect(view.result).toMatchObject({ status: "terminated", finalAgent: "teacher", error: null, handoffs: 2, steps: 7, seq: 34 });
    expect(view.result?.signal?.signal).toBe("[END_EXAM]");
    expect(view.edges).toEqual({ "teacher→exam_round": 2, "exam_round→teacher": 2, "teacher→end": 1 });
    expect(view.pulse).toMatchObject({ keys: ["teacher→end"], seq: 34 });
    expect(view.agents).toEqual({ teacher: "done", student: "done", reporter: "done" });
    expect(view.turns.map((t) => `${t.agent}:${t.state}`)).toEqual([
      "teacher:done",
      "student:done",
      "reporter:done",
      "teacher:done",
      "student:done",
      "reporter:done",
      "teacher:done",
    ]);
  });

  it("a cancelled run keeps the partial reply of the turn it stopped, and nobody stays lit", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Fractions exam", input: "Begin." },
        { type: "agent_started", agent: "teacher", step: 1 },
        { type: "token", agent: "teacher", text: "Question 1: what" },
        { type: "run_finished", status: "cancelled", final_agent: "teacher", handoffs: 0, steps: 1 },
      ]),
    );
    expect(view.turns[0]).toMatchObject({ text: "Question 1: what", state: "stopped", error: null });
    expect(view.agents.teacher).toBe("idle");
    expect(view.status).toBe("cancelled");
  });
});

describe("applyRunEvent: order", () => {
  it("ignores an event seen before (seq at or below the last one)", () => {
    const all = examRun();
    const once = fromEvents(all.slice(0, 4));
    const twice = applyRunEvents(once, [all[2], all[3], all[1]]);
    expect(twice).toBe(once);
    expect(twice.turns[0].text).toBe("Question 1: what is 1/2 + 1/4? [QUESTION]");
  });

  it("holds an event that arrives past a gap until the gap fills, then applies both in order", () => {
    const all = examRun();
    const before = fromEvents(all.slice(0, 2));
    const ahead = applyRunEvent(before, all[3]);
    expect(ahead.lastSeq).toBe(1);
    expect(ahead.pending.map((e) => e.seq)).toEqual([3]);
    expect(ahead.turns[0].final).toBe(false);
    // The same early event again is not held twice.
    expect(applyRunEvent(ahead, all[3]).pending).toHaveLength(1);
    const filled = applyRunEvent(ahead, all[2]);
    expect(filled.lastSeq).toBe(3);
    expect(filled.pending).toEqual([]);
    expect(filled).toEqual(fromEvents(all.slice(0, 4)));
  });

  it("any order of a run's events, with duplicates, gives the same view as the run in order", () => {
    const all = examRun();
    const shuffled = [...all].reverse();
    const messy = applyRunEvents(emptyRun("run-1"), [...shuffled, ...all.slice(5, 9)]);
    expect(messy).toEqual(fromEvents(all));
  });

  it("ignores another run's events", () => {
    const view = at(3);
    const other = events([{ type: "token", agent: "teacher", text: "not mine" }], "run-2", 4);
    expect(applyRunEvents(view, other)).toBe(view);
  });

  it("an unnamed view takes the id of the first event it gets", () => {
    expect(applyRunEvent(emptyRun(), examRun()[0]).runId).toBe("run-1");
  });
});

describe("replay and catch-up", () => {
  it("catch-up: a prefix, then the rest, equals the whole run at once", () => {
    const all = examRun();
    for (const cut of [1, 7, 12, 17, 30]) {
      const caughtUp = applyRunEvents(fromEvents(all.slice(0, cut)), all.slice(cut));
      expect(caughtUp).toEqual(fromEvents(all));
    }
  });

  it("catch-up that overlaps what was seen (a watch from an older seq) changes nothing twice", () => {
    const all = examRun();
    const caughtUp = applyRunEvents(fromEvents(all.slice(0, 20)), all.slice(10));
    expect(caughtUp).toEqual(fromEvents(all));
  });

  it("replayFrames: frame i is the run after its first i + 1 events", () => {
    const all = examRun();
    const frames = replayFrames(all);
    expect(frames).toHaveLength(all.length);
    for (const i of [0, 5, 16, 17, 34]) expect(frames[i]).toEqual(fromEvents(all.slice(0, i + 1)));
    expect(replayFrames([])).toEqual([]);
  });
});

describe("a pause and the person's answer", () => {
  it("pauses: the agent waits, the Wait arrow is taken, the run is paused", () => {
    const view = fromEvents(pausedRun());
    expect(view.status).toBe("paused");
    expect(view.paused).toEqual({ agent: "teacher", signal: "[WAIT]", seq: 5, timestamp: "2026-11-28T10:00:00.006Z" });
    expect(view.agents.teacher).toBe("waiting");
    expect(view.edges).toEqual({ "teacher→wait": 1 });
    expect(view.result).toMatchObject({ status: "paused", finalAgent: "teacher" });
    expect(view.result?.signal?.signal).toBe("[WAIT]");
  });

  it("resumes with the answer, runs on and finishes", () => {
    const paused = fromEvents(pausedRun());
    const leg = resumedLeg();
    const resumed = applyRunEvent(paused, leg[0]);
    expect(resumed.status).toBe("running");
    expect(resumed.paused).toBeNull();
    expect(resumed.result).toBeNull();
    expect(resumed.answers).toEqual([{ agent: "teacher", input: "Fractions, please.", seq: 7, timestamp: "2026-11-28T10:00:00.008Z" }]);
    expect(resumed.agents.teacher).toBe("done");
    const finished = applyRunEvents(resumed, leg.slice(1));
    expect(finished.status).toBe("terminated");
    expect(finished.turns.map((t) => t.text)).toEqual(["Which topic shall we practise? [WAIT]", "Fractions it is. Goodbye! [END_EXAM]"]);
    expect(finished.edges).toEqual({ "teacher→wait": 1, "teacher→end": 1 });
    expect(finished).toEqual(fromEvents([...pausedRun(), ...leg]));
  });
});

describe("a failed run", () => {
  const view: RunView = fromEvents(failedRun());

  it("marks the agent at work failed and keeps its partial reply with the error", () => {
    expect(view.status).toBe("failed");
    expect(view.agents).toEqual({ teacher: "done", student: "failed" });
    const student = view.turns.at(-1)!;
    expect(student).toMatchObject({ agent: "student", text: "1/2 is 2/4, so the sum is", final: false, state: "failed", error: "agent 'student': provider unavailable" });
    expect(view.result?.error).toBe("agent 'student': provider unavailable");
    expect(view.warnings).toHaveLength(1);
  });

  it("the earlier handoff keeps its signal (matched ignoring case)", () => {
    expect(view.handoffs[0].signal).toMatchObject({ signal: "[QUESTION]", level: "case_insensitive" });
    expect(view.edges).toEqual({ "teacher→student": 1 });
  });

  it("a group member that fails the group (wait_for_all) is the one marked failed, not its cancelled partner", () => {
    const group = fromEvents(
      events([
        { type: "run_started", crew: "Fractions exam", input: "Begin." },
        { type: "parallel_started", group: "exam_round", agents: ["student", "reporter"] },
        { type: "agent_started", agent: "student", step: 1 },
        { type: "agent_started", agent: "reporter", step: 2 },
        { type: "token", agent: "student", text: "1/2 is" },
        { type: "token", agent: "reporter", text: "Let me" },
        { type: "parallel_finished", group: "exam_round", finished: [], timed_out: ["student"] },
        {
          type: "run_finished",
          status: "failed",
          final_agent: "teacher",
          error: "member 'student' of parallel group 'exam_round' failed: provider unavailable",
          handoffs: 1,
          steps: 2,
        },
      ]),
    );
    expect(group.turns.map((t) => [t.agent, t.state, t.text])).toEqual([
      ["student", "failed", "1/2 is"],
      ["reporter", "stopped", "Let me"],
    ]);
    expect(group.turns[0].error).toContain("member 'student'");
    expect(group.agents).toEqual({ student: "failed", reporter: "idle" });
  });
});

describe("edgeKey", () => {
  it("joins ids with an arrow", () => {
    expect(edgeKey("teacher", "exam_round")).toBe("teacher→exam_round");
  });
});

describe("usage: tokens and time, per turn, per agent and for the run", () => {
  /** An interview whose two agents' providers report tokens; the writer takes 1.5 s. */
  const metered = () =>
    events([
      { type: "run_started", crew: "Interview", input: "Hi" },
      { type: "agent_started", agent: "host", step: 1 },
      { type: "token", agent: "host", text: "Tell me [SUMMARY]" },
      { type: "agent_response", agent: "host", content: "Tell me [SUMMARY]", usage: { input_tokens: 120, output_tokens: 30 } },
      { type: "handoff", from: "host", to: "writer", reason: "signal [SUMMARY] (exact)", handoff_count: 1 },
      { type: "agent_started", agent: "writer", step: 2 },
      { type: "agent_response", agent: "writer", content: "Done [DONE]", usage: { input_tokens: 200, output_tokens: 45, cost_usd: 0.0003 } },
      { type: "run_finished", status: "terminated", final_agent: "writer", handoffs: 1, steps: 2 },
    ]).map((e) => (e.seq === 6 ? { ...e, timestamp: "2026-11-28T10:00:01.506Z" } : e));

  it("a turn keeps what its provider reported and how long it took, from its start to its whole reply", () => {
    const view = fromEvents(metered());
    // (The fixtures' events are a millisecond apart: the host's turn began at seq 1, replied at seq 3.)
    expect(view.turns[0]).toMatchObject({ agent: "host", usage: { input_tokens: 120, output_tokens: 30 }, latencyMs: 2 });
    expect(view.turns[1]).toMatchObject({ agent: "writer", usage: { input_tokens: 200, output_tokens: 45, cost_usd: 0.0003 }, latencyMs: 1500 });
  });

  it("a turn still writing has neither usage nor a time yet", () => {
    const view = fromEvents(metered().slice(0, 3));
    expect(view.turns[0]).toMatchObject({ usage: null, latencyMs: null });
    expect(view.usage.total.turns).toBe(0);
  });

  it("adds the turns up per agent, in the order they first replied, and for the run", () => {
    const view = fromEvents(metered());
    expect(Object.keys(view.usage.agents)).toEqual(["host", "writer"]);
    expect(view.usage.agents.host).toEqual({ inputTokens: 120, outputTokens: 30, turns: 1, counted: 1, latencyMs: 2, costUsd: 0, priced: 0 });
    // Only the writer's model has a price: the run's cost is what is known of it.
    expect(view.usage.total).toEqual({ inputTokens: 320, outputTokens: 75, turns: 2, counted: 2, latencyMs: 1502, costUsd: 0.0003, priced: 1 });
  });

  it("an agent's turns add up: the exam's teacher replied three times", () => {
    const view = fromEvents(examRun());
    expect(view.usage.agents.teacher).toMatchObject({ turns: 3, counted: 0, inputTokens: 0 });
    expect(view.usage.agents.student.turns).toBe(2);
    expect(view.usage.total.turns).toBe(7);
  });

  it("Simulate mode reports no tokens: the turns are counted and timed, nothing is spent", () => {
    const view = fromEvents(examRun());
    expect(view.usage.total).toMatchObject({ inputTokens: 0, outputTokens: 0, counted: 0 });
    expect(view.usage.total.latencyMs).toBeGreaterThan(0);
    expect(view.turns.every((t) => t.usage === null)).toBe(true);
  });

  it("a failed turn adds nothing (it never replied whole)", () => {
    const view = fromEvents(failedRun());
    expect(Object.keys(view.usage.agents)).toEqual(["teacher"]);
    expect(view.usage.total.turns).toBe(1);
  });

  it("replaying step by step shows the usage as it was at each event", () => {
    const frames = replayFrames(metered());
    expect(frames[3].usage.total.inputTokens).toBe(120);
    expect(frames[5].usage.total.inputTokens).toBe(120);
    expect(frames[6].usage.total.inputTokens).toBe(320);
  });
});


describe("the tracker's moves that are not transfers", () => {
  it("the exam: each question's transfer, the group handing back ('then'), and the move to End", () => {
    const view = fromEvents(examRun());
    expect(view.handoffs.map((h) => [h.kind, h.from, h.to])).toEqual([
      ["transfer", "teacher", "exam_round"],
      ["then", "exam_round", "teacher"],
      ["transfer", "teacher", "exam_round"],
      ["then", "exam_round", "teacher"],
      ["end", "teacher", "end"],
    ]);
    // Only transfers count against the limit; a 'then' carries the count so far.
    expect(view.handoffs[1]).toMatchObject({ handoffCount: 1, edges: ["exam_round→teacher"], signal: null });
    expect(view.handoffs[4]).toMatchObject({ reason: "[END_EXAM]", edges: ["teacher→end"], turn: view.turns.at(-1)?.id });
    expect(view.handoffs[4].signal?.signal).toBe("[END_EXAM]");
  });

  it("a pause is a move to Wait, with the signal that asked", () => {
    const view = fromEvents(pausedRun());
    expect(view.handoffs).toHaveLength(1);
    expect(view.handoffs[0]).toMatchObject({ kind: "wait", from: "teacher", to: "wait", edges: ["teacher→wait"] });
    expect(view.handoffs[0].signal?.signal).toBe("[WAIT]");
  });

  it("a failed run makes no move to End", () => {
    expect(fromEvents(failedRun()).handoffs.map((h) => h.kind)).toEqual(["transfer"]);
  });

  it("a scoring run that completes moves to End from its last agent", () => {
    const moves = fromEvents(scoringRun()).handoffs;
    expect(moves.at(-1)).toMatchObject({ kind: "end", from: "closer", to: "end", signal: null });
  });
});
