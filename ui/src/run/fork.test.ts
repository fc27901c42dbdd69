// Forking from a turn: the seq of the reply the backend is asked to fork at (the
// turn's agent's first reply after it began, not another agent's in a parallel
// group), which turns can be forked, a signal chosen in place of the one the reply
// ended with, and a refusal in the window's words (the command-line advice left to
// the "Run it on the version it ran" button).
import { describe, expect, it } from "vitest";
import { canFork, forkRefusal, replySeq, withoutEndSignal } from "./fork";
import { examRun } from "./fixtures";
import { fromEvents } from "./reducer";

describe("replySeq", () => {
  it("is the turn's own reply, even while another member of its group writes", () => {
    const run = examRun();
    const turns = fromEvents(run).turns;
    expect(turns.map((t) => [t.agent, replySeq(run, t)])).toEqual([
      ["teacher", 3],
      ["student", 9],
      ["reporter", 15],
      ["teacher", 19],
      ["student", 25],
      ["reporter", 28],
      ["teacher", 32],
    ]);
  });

  it("is null for a turn whose reply is not stored", () => {
    expect(replySeq(examRun().slice(0, 5), { id: 7, agent: "student" })).toBeNull();
  });
});

describe("canFork", () => {
  it("a whole reply of a run that is over and stored", () => {
    expect(canFork({ state: "done", final: true }, { over: true, imported: false })).toBe(true);
    expect(canFork({ state: "done", final: true }, { over: false, imported: false })).toBe(false);
    expect(canFork({ state: "done", final: true }, { over: true, imported: true })).toBe(false);
    expect(canFork({ state: "stopped", final: false }, { over: true, imported: false })).toBe(false);
  });
});

describe("withoutEndSignal", () => {
  it("takes off the signal the reply ends with, and only that", () => {
    expect(withoutEndSignal("What is 1/2? [QUESTION]  ", ["[QUESTION]", "[BOOK]"])).toBe("What is 1/2?");
    expect(withoutEndSignal("[QUESTION] first, then words", ["[QUESTION]"])).toBe("[QUESTION] first, then words");
    expect(withoutEndSignal("No signal here", ["[QUESTION]"])).toBe("No signal here");
  });
});

describe("forkRefusal", () => {
  it("a crew changed since: the sentence without the command-line advice, and the way on offered", () => {
    expect(
      forkRefusal("the crew file changed since run 'r1' ran, so its replies may not fit it: fork it on the version it ran (revision 4) with --on-revision (on_revision: true)"),
    ).toEqual({ text: "The crew file changed since run 'r1' ran, so its replies may not fit it. The version it ran is kept as revision 4.", onRevision: true });
  });

  it("any other refusal as the backend words it, as a sentence", () => {
    expect(forkRefusal("run 'r1' is still going on: fork it once it has stopped")).toEqual({
      text: "Run 'r1' is still going on: fork it once it has stopped.",
      onRevision: false,
    });
  });
});
