import { describe, expect, it } from "vitest";
import type { ProblemView } from "../bindings/ProblemView";
import { badgesByTarget, problemSummary } from "./problems";

const problem = (severity: "error" | "warning", plain: string, targets: string[]): ProblemView => ({
  diagnostic: {
    severity,
    problem: { code: "unknown_key", key: "x" },
    message: plain,
    plain,
    location: null,
    subject: { kind: "crew" },
  },
  targets,
});

describe("badgesByTarget", () => {
  it("lets an error outrank a warning on the same target, and lists errors first", () => {
    const badges = badgesByTarget([problem("warning", "w", ["agent:a"]), problem("error", "e", ["agent:a"])]);
    expect(badges.get("agent:a")).toEqual({ severity: "error", messages: ["e", "w"] });
  });

  it("gives each target its own badge and none to problems about the whole crew", () => {
    const badges = badgesByTarget([problem("warning", "w", ["agent:b"]), problem("error", "crew-wide", [])]);
    expect([...badges.keys()]).toEqual(["agent:b"]);
  });
});

describe("problemSummary", () => {
  it("counts errors and warnings in words", () => {
    expect(problemSummary([])).toBe("No problems");
    expect(problemSummary([problem("error", "e", [])])).toBe("1 error");
    expect(problemSummary([problem("error", "e", []), problem("error", "e", []), problem("warning", "w", [])])).toBe(
      "2 errors, 1 warning",
    );
  });
});
