// Runs for the tests, as the engine reports them: the exam crew's trace (copied
// from src-tauri/crates/crewgraph/tests/integration/snapshots/…trace_exam.snap:
// teacher → exam_round (student, reporter) → teacher … [END_EXAM]), a run that
// pauses for the person and resumes, one that fails mid-stream, and the support
// triage's scoring decision. `events` numbers and stamps plain event bodies.
import type { RunEvent } from "../bindings/RunEvent";

/** An event's body: the event without its run, seq and timestamp. */
export type EventBody = WithoutStamp<RunEvent>;
type WithoutStamp<E> = E extends unknown ? Omit<E, "run_id" | "seq" | "timestamp"> : never;

/** Events of run `runId` from `bodies`, seq from `from` on, a millisecond apart. */
export function events(bodies: EventBody[], runId = "run-1", from = 0): RunEvent[] {
  return bodies.map((body, i) => {
    const seq = from + i;
    const timestamp = new Date(Date.UTC(2026, 10, 28, 10, 0, 0, seq + 1)).toISOString();
    return { ...body, run_id: runId, seq, timestamp } as RunEvent;
  });
}

/** `all` as a model's run would space them: one event every `ms` (a second by
 * default), so its arrows pulse (reducer.ts, PULSE_CALM_MS). */
export function paced(all: RunEvent[], ms = 1000): RunEvent[] {
  return all.map((event) => ({ ...event, timestamp: new Date(Date.UTC(2026, 10, 28, 10, 0, 0) + event.seq * ms).toISOString() }));
}

/** The exam crew's whole run (35 events, seq 0–34). */
export function examRun(): RunEvent[] {
  return events([
    { type: "run_started", crew: "Fractions exam", input: "Begin." },
    { type: "agent_started", agent: "teacher", step: 1 },
    { type: "token", agent: "teacher", text: "Question 1: what is 1/2 + 1/4? [QUESTION]" },
    { type: "agent_response", agent: "teacher", content: "Question 1: what is 1/2 + 1/4? [QUESTION]" },
    { type: "signal_matched", agent: "teacher", signal: "[QUESTION]", level: "exact", behavior: "parallel", target: "exam_round" },
    { type: "handoff", from: "teacher", to: "exam_round", reason: "signal [QUESTION] (exact)", handoff_count: 1 },
    { type: "parallel_started", group: "exam_round", agents: ["student", "reporter"] },
    { type: "agent_started", agent: "student", step: 2 },
    { type: "token", agent: "student", text: "1/2 is 2/4, and 2/4 + 1/4 = 3/4." },
    { type: "agent_response", agent: "student", content: "1/2 is 2/4, and 2/4 + 1/4 = 3/4." },
    { type: "agent_started", agent: "reporter", step: 3 },
    { type: "token", agent: "reporter", text: "Let me check." },
    { type: "tool_call", agent: "reporter", name: "calculator", arguments: { expression: "1/2 + 1/4" } },
    { type: "tool_result", agent: "reporter", name: "calculator", result: "0.75" },
    { type: "token", agent: "reporter", text: "0.75 is 3/4: right. Score: 1/1" },
    { type: "agent_response", agent: "reporter", content: "0.75 is 3/4: right. Score: 1/1" },
    { type: "parallel_finished", group: "exam_round", finished: ["student", "reporter"], timed_out: [] },
    { type: "agent_started", agent: "teacher", step: 4 },
    { type: "token", agent: "teacher", text: "Well done. Question 2: what is 2/3 of 9? [QUESTION]" },
    { type: "agent_response", agent: "teacher", content: "Well done. Question 2: what is 2/3 of 9? [QUESTION]" },
    { type: "signal_matched", agent: "teacher", signal: "[QUESTION]", level: "exact", behavior: "parallel", target: "exam_round" },
    { type: "handoff", from: "teacher", to: "exam_round", reason: "signal [QUESTION] (exact)", handoff_count: 2 },
    { type: "parallel_started", group: "exam_round", agents: ["student", "reporter"] },
    { type: "agent_started", agent: "student", step: 5 },
    { type: "token", agent: "student", text: "9 divided by 3 is 3, times 2 is 6." },
    { type: "agent_response", agent: "student", content: "9 divided by 3 is 3, times 2 is 6." },
    { type: "agent_started", agent: "reporter", step: 6 },
    { type: "token", agent: "reporter", text: "Right again. Score: 2/2" },
    { type: "agent_response", agent: "reporter", content: "Right again. Score: 2/2" },
    { type: "parallel_finished", group: "exam_round", finished: ["student", "reporter"], timed_out: [] },
    { type: "agent_started", agent: "teacher", step: 7 },
    { type: "token", agent: "teacher", text: "Both right: your score is 2/2. That is the end of the exam. [END_EXAM]" },
    { type: "agent_response", agent: "teacher", content: "Both right: your score is 2/2. That is the end of the exam. [END_EXAM]" },
    { type: "signal_matched", agent: "teacher", signal: "[END_EXAM]", level: "exact", behavior: "terminate", target: null },
    { type: "run_finished", status: "terminated", final_agent: "teacher", handoffs: 2, steps: 7 },
  ]);
}

/** A run whose teacher asks the person (`[WAIT]`, a pause signal): seq 0–6. */
export function pausedRun(): RunEvent[] {
  return events([
    { type: "run_started", crew: "Fractions exam", input: "Ask me something." },
    { type: "agent_started", agent: "teacher", step: 1 },
    { type: "token", agent: "teacher", text: "Which topic shall we practise? " },
    { type: "agent_response", agent: "teacher", content: "Which topic shall we practise? [WAIT]" },
    { type: "signal_matched", agent: "teacher", signal: "[WAIT]", level: "exact", behavior: "pause", target: null },
    { type: "paused", agent: "teacher", signal: "[WAIT]" },
    { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 1 },
  ]);
}

/** The same run resumed with the person's answer and finished: seq 7–13. */
export function resumedLeg(): RunEvent[] {
  return events(
    [
      { type: "resumed", agent: "teacher", input: "Fractions, please." },
      { type: "agent_started", agent: "teacher", step: 2 },
      { type: "token", agent: "teacher", text: "Fractions it is. " },
      { type: "token", agent: "teacher", text: "Goodbye! [END_EXAM]" },
      { type: "agent_response", agent: "teacher", content: "Fractions it is. Goodbye! [END_EXAM]" },
      { type: "signal_matched", agent: "teacher", signal: "[END_EXAM]", level: "exact", behavior: "terminate", target: null },
      { type: "run_finished", status: "terminated", final_agent: "teacher", handoffs: 0, steps: 2 },
    ],
    "run-1",
    7,
  );
}

/** A run whose student's provider fails halfway through a reply: seq 0–9. */
export function failedRun(): RunEvent[] {
  return events([
    { type: "run_started", crew: "Tutor", input: "Begin." },
    { type: "agent_started", agent: "teacher", step: 1 },
    { type: "agent_response", agent: "teacher", content: "What is 1/2 + 1/4? [QUESTION]" },
    { type: "signal_matched", agent: "teacher", signal: "[QUESTION]", level: "case_insensitive", behavior: "route", target: "student" },
    { type: "handoff", from: "teacher", to: "student", reason: "signal [QUESTION] (case_insensitive)", handoff_count: 1 },
    { type: "agent_started", agent: "student", step: 2 },
    { type: "token", agent: "student", text: "1/2 is 2/4, " },
    { type: "token", agent: "student", text: "so the sum is" },
    { type: "warning", message: "student's model failed (provider unavailable); trying its backup model" },
    { type: "run_finished", status: "failed", final_agent: "student", error: "agent 'student': provider unavailable", handoffs: 1, steps: 2 },
  ]);
}

/** The support triage's first steps (scoring): the supervisor routes by score. */
export function scoringRun(): RunEvent[] {
  return events([
    { type: "run_started", crew: "Support triage", input: "I was charged twice on my invoice and want a refund" },
    {
      type: "routing_decision",
      strategy: "scoring",
      candidates: [
        { agent: "billing", score: 7 },
        { agent: "tech", score: 1 },
      ],
      chosen: "billing",
      tokens: ["was", "charged", "twice", "invoice", "and", "want", "refund"],
    },
    { type: "handoff", from: "triage", to: "billing", reason: "best score (7)", handoff_count: 1 },
    { type: "agent_started", agent: "billing", step: 1 },
    { type: "agent_response", agent: "billing", content: "A refund is on its way." },
    { type: "handoff", from: "billing", to: "closer", reason: "finalize", handoff_count: 2 },
    { type: "agent_started", agent: "closer", step: 2 },
    { type: "agent_response", agent: "closer", content: "Thanks for writing: your refund is on its way." },
    { type: "run_finished", status: "completed", final_agent: "closer", handoffs: 2, steps: 2 },
  ]);
}
