import { describe, expect, it } from "vitest";
import { writtenLine, writtenLines } from "./lineSignals";

describe("writtenLine", () => {
  it("reads the code-review crew's patterns as the lines its agents write", () => {
    // What the pill shows is what the agent's prompt asks it to write.
    expect(writtenLine("^READY_FOR_REVIEW:\\s*(\\S+)")).toBe("READY_FOR_REVIEW: <id>");
    expect(writtenLine("^SEEKING_CLARIFICATION$")).toBe("SEEKING_CLARIFICATION");
    expect(writtenLine("^AUDIT_FAILED:\\s*(\\S+)")).toBe("AUDIT_FAILED: <id>");
  });

  it("calls a payload that may hold spaces <text>", () => {
    expect(writtenLine("^NOTE: (.+)$")).toBe("NOTE: <text>");
    expect(writtenLine("^TICKET\\s+([A-Z]+-[0-9]+)")).toBe("TICKET <text>");
  });

  it("keeps escaped punctuation and drops what is not one plain line", () => {
    expect(writtenLine("^DONE\\.$")).toBe("DONE.");
    // Alternatives, classes and \d outside a payload have no one line to show:
    // the pill keeps the signal's name then.
    expect(writtenLine("^(yes|no)$")).toBeNull();
    expect(writtenLine("^yes|no$")).toBeNull();
    expect(writtenLine("^[A-Z]+$")).toBeNull();
    expect(writtenLine("^STEP \\d+$")).toBeNull();
    expect(writtenLine("")).toBeNull();
  });

  it("maps each line signal by name, and leaves bracket signals out", () => {
    const lines = writtenLines([
      { name: "review-ready", pattern: "^READY_FOR_REVIEW:\\s*(\\S+)" },
      { name: "[DONE]", pattern: null },
    ]);
    expect([...lines]).toEqual([["review-ready", "READY_FOR_REVIEW: <id>"]]);
  });
});
