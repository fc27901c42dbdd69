// A reply that did not route, in words: each kind of near miss after the agent's
// name, the fixes' labels, and where the missed route stands among the tracker's moves.
import { describe, expect, it } from "vitest";
import type { NearMiss } from "../bindings/NearMiss";
import { events } from "./fixtures";
import { fromEvents } from "./reducer";
import { acceptedWords, acceptWords, alsoCloseWords, missedTurns, missWords, remindedWords, remindWords, replyTime, trackerEntries } from "./nearMiss";

const miss = (kind: NearMiss["kind"], found: string, signal: string, distance = 0): NearMiss => ({ kind, found, signal, distance });

describe("missWords", () => {
  it("says each kind after the agent's name, as the issue words it", () => {
    expect(missWords(miss("misspelt", "[QUESTON]", "[QUESTION]", 1), "Student")).toBe("Student wrote [QUESTON] — did you mean [QUESTION]?");
    expect(missWords(miss("no_brackets", "QUESTION", "[QUESTION]"), "Student")).toBe("Student wrote QUESTION without brackets — the signal is [QUESTION]");
    expect(missWords(miss("not_this_agents", "[HINT]", "[HINT]"), "Student")).toBe("Student wrote [HINT], but none of its arrows uses [HINT]");
    expect(missWords(miss("not_allowed", "[GRADE]", "[GRADE]"), "Student")).toBe("Student wrote [GRADE], but it may not send [GRADE]");
  });

  it("keeps what the reply has as written (case, spaces, another script)", () => {
    expect(missWords(miss("misspelt", "[kết thuc]", "[KẾT THÚC]", 1), "Giáo viên")).toBe("Giáo viên wrote [kết thuc] — did you mean [KẾT THÚC]?");
    expect(missWords(miss("no_brackets", "ready for review", "[READY FOR REVIEW]"), "Writer")).toBe(
      "Writer wrote ready for review without brackets — the signal is [READY FOR REVIEW]",
    );
  });
});

describe("the fixes' words", () => {
  it("names the fix as Undo will", () => {
    const m = miss("misspelt", "[QUESTON]", "[QUESTION]", 1);
    expect(acceptWords(m)).toBe("Accept [QUESTON] as [QUESTION]");
    expect(remindWords("Student")).toBe("Remind Student of its signals");
    expect(acceptedWords(m)).toBe("[QUESTON] now counts as [QUESTION]");
    expect(remindedWords("Student")).toBe("Student's instructions now end with a reminder of its signals");
    expect(alsoCloseWords([miss("misspelt", "[QUESTON]", "[QUESTIONS]", 1), miss("no_brackets", "ASK", "[ASK]")])).toBe("[QUESTON] for [QUESTIONS], ASK for [ASK]");
  });
});

/** Student misspells its signal, falls back to the teacher, who ends the run. */
function missedRun() {
  return fromEvents(
    events([
      { type: "run_started", crew: "Office hours", input: "Help" },
      { type: "agent_started", agent: "student", step: 1 },
      { type: "token", agent: "student", text: "What is 1/2 + 1/4? [QUESTON]" },
      { type: "agent_response", agent: "student", content: "What is 1/2 + 1/4? [QUESTON]" },
      { type: "route_missed", agent: "student", candidates: [miss("misspelt", "[QUESTON]", "[QUESTION]", 1)] },
      { type: "handoff", from: "student", to: "teacher", reason: "no signal matched; next agent (automatic fallback)", handoff_count: 1 },
      { type: "agent_started", agent: "teacher", step: 2 },
      { type: "agent_response", agent: "teacher", content: "3/4. [DONE]" },
      { type: "signal_matched", agent: "teacher", signal: "[DONE]", level: "exact", behavior: "terminate", target: null },
      { type: "run_finished", status: "terminated", final_agent: "teacher", handoffs: 1, steps: 2 },
    ]),
  );
}

describe("trackerEntries", () => {
  it("puts a missed route at its turn: before the fallback that followed it, the End last", () => {
    const view = missedRun();
    const entries = trackerEntries(view.handoffs, missedTurns(view.turns));
    expect(entries.map((e) => (e.kind === "move" ? `${e.move.from}→${e.move.to}` : `missed ${e.turn.agent}`))).toEqual([
      "missed student",
      "student→teacher",
      "teacher→end",
    ]);
  });

  it("puts it after a group's then-move into the same turn (they share a seq)", () => {
    const view = missedRun();
    const turn = missedTurns(view.turns)[0];
    const then = { ...view.handoffs[0], kind: "then" as const, seq: turn.id, from: "round", to: "student" };
    const entries = trackerEntries([then], [turn]);
    expect(entries.map((e) => e.kind)).toEqual(["move", "missed"]);
  });

  it("leaves the moves alone when no reply missed", () => {
    const view = missedRun();
    expect(trackerEntries(view.handoffs, []).map((e) => e.kind)).toEqual(["move", "move"]);
  });
});

describe("replyTime", () => {
  it("is the turn's start and its time", () => {
    const turn = missedTurns(missedRun().turns)[0];
    expect(Date.parse(replyTime(turn)) - Date.parse(turn.startedAt)).toBe(turn.latencyMs);
    expect(replyTime({ ...turn, latencyMs: null })).toBe(turn.startedAt);
  });
});
