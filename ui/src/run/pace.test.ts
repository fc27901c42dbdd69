// @vitest-environment jsdom
// A scripted run's pace, remembered per crew: readable for a crew never run so.
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PACE, PACE_WORDS, rememberedPace, rememberPace } from "./pace";

beforeEach(() => localStorage.clear());

describe("the pace of a scripted run", () => {
  it("is remembered per crew; a crew never run so starts as a model would write", () => {
    expect(DEFAULT_PACE).toBe("readable");
    expect(rememberedPace("/crews/exam.yaml")).toBe("readable");
    rememberPace("/crews/exam.yaml", "step");
    rememberPace("/crews/interview.yaml", "instant");
    expect(rememberedPace("/crews/exam.yaml")).toBe("step");
    expect(rememberedPace("/crews/interview.yaml")).toBe("instant");
    expect(rememberedPace(null)).toBe("readable");
  });

  it("ignores what it cannot read", () => {
    localStorage.setItem("crewgraph-pace", JSON.stringify({ "/a.yaml": "warp", "/b.yaml": "step" }));
    expect(rememberedPace("/a.yaml")).toBe("readable");
    expect(rememberedPace("/b.yaml")).toBe("step");
    localStorage.setItem("crewgraph-pace", "not json");
    expect(rememberedPace("/b.yaml")).toBe("readable");
  });

  it("offers three paces, in words", () => {
    expect(PACE_WORDS.map((p) => p.label)).toEqual(["As a model would", "Step by step", "At once"]);
  });
});
