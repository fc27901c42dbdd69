// Line signals read as the line an agent writes: the code review crew's patterns,
// and patterns too rich to write for the person (they write the whole line).
import { describe, expect, it } from "vitest";
import { lineMatches, lineTemplate, withLine, writeLine } from "./lineSignals";

describe("lineTemplate", () => {
  it("a line with a payload: the words before it, and the payload's place", () => {
    const template = lineTemplate("^READY_FOR_REVIEW:\\s*(\\S+)");
    expect(template).toEqual({ before: "READY_FOR_REVIEW: ", payload: true, after: "" });
    expect(writeLine(template!, " T-42 ")).toBe("READY_FOR_REVIEW: T-42");
    expect(lineMatches("^READY_FOR_REVIEW:\\s*(\\S+)", "Done.\nREADY_FOR_REVIEW: T-42")).toBe(true);
  });

  it("a line without one: the line itself", () => {
    expect(lineTemplate("^SEEKING_CLARIFICATION$")).toEqual({ before: "SEEKING_CLARIFICATION", payload: false, after: "" });
    expect(lineTemplate("^TASK (\\d+) DONE\\.$")).toEqual({ before: "TASK ", payload: true, after: " DONE." });
  });

  it("a pattern richer than words and one payload: none (the person writes the line)", () => {
    expect(lineTemplate("^(PASS|FAIL): (.+)$")).toBeNull();
    expect(lineTemplate("^[A-Z]+:")).toBeNull();
    expect(lineTemplate("^DONE.*")).toBeNull();
  });

  it("the line goes on a line of its own at the reply's end", () => {
    expect(withLine("Added the form.  ", "READY_FOR_REVIEW: T-42")).toBe("Added the form.\nREADY_FOR_REVIEW: T-42");
    expect(withLine("", "SEEKING_CLARIFICATION")).toBe("SEEKING_CLARIFICATION");
    expect(lineMatches("^X: (\\S+)", "X:")).toBe(false);
  });
});
