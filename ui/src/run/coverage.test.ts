// Route coverage's words and heats: how often the test's runs took an arrow decides
// how the canvas paints it, and the legend says what each paint means for this
// many runs.
import { describe, expect, it } from "vitest";
import { createCoverageStore } from "./coverageStore";
import { arrowWords, heatOf, heats, heatStroke, heatWords, legend, verdict } from "./coverage";
import { coverageReport } from "./coverageFixtures";

describe("an arrow's heat", () => {
  it("is the share of the runs that took it, in thirds", () => {
    expect([0, 1, 3, 4, 6, 7, 9].map((n) => heatOf({ runs: n }, 9))).toEqual(["never", "few", "few", "many", "many", "all", "all"]);
    // One run: taken or not.
    expect([heatOf({ runs: 0 }, 1), heatOf({ runs: 1 }, 1)]).toEqual(["never", "all"]);
  });

  it("is drawn wider the more often it was taken, and dashed when never", () => {
    expect(heatStroke("never", false)).toEqual({ stroke: "var(--coverage-never)", strokeWidth: 2.5, strokeDasharray: "5 4" });
    expect(heatStroke("all", true).strokeWidth).toBeGreaterThan(heatStroke("many", true).strokeWidth);
  });
});

describe("the legend", () => {
  it("says the runs each paint stands for", () => {
    expect(legend(9)).toEqual([
      { heat: "never", words: "never taken" },
      { heat: "few", words: "in 1–3 of 9 runs" },
      { heat: "many", words: "in 4–6 of 9 runs" },
      { heat: "all", words: "in 7–9 of 9 runs" },
    ]);
  });

  it("leaves out the paints that cannot occur with few runs", () => {
    expect(legend(1)).toEqual([
      { heat: "never", words: "never taken" },
      { heat: "all", words: "in the run" },
    ]);
    expect(legend(2).map((l) => l.words)).toEqual(["never taken", "in 1 of 2 runs", "in all 2 runs"]);
    expect(heatWords("all", 3)).toBe("in all 3 runs");
  });
});

describe("the report in words", () => {
  it("says which arrows were never taken and how many runs were made", () => {
    const report = coverageReport();
    expect(verdict(report)).toBe("1 arrow is never taken (3 simulated runs).");
    expect(verdict({ ...report, passed: true })).toBe("Every arrow was taken in 3 simulated runs, and every run ended as planned.");
    const failed = { ...report, scenarios: report.scenarios.map((s, i) => (i === 0 ? { ...s, passed: false } : s)) };
    expect(verdict(failed)).toBe("1 arrow is never taken, and 1 run did not end as planned (3 simulated runs).");
    expect(arrowWords(report.arrows[0])).toBe("Teacher → exam_round · [QUESTION]");
  });

  it("gives each arrow its heat by id", () => {
    expect(heats(coverageReport())).toEqual({
      "rule:teacher:0:group:exam_round": "many",
      "rule:teacher:1:end": "all",
      "next:exam_round:agent:teacher": "many",
      "rule:teacher:2:agent:student": "never",
    });
  });
});

describe("the coverage store", () => {
  it("shows a crew's report on the canvas only while the tab is open, and only for that crew", () => {
    const store = createCoverageStore();
    store.getState().started("/crews/exam.yaml");
    expect(store.getState().running).toBe(true);
    store.getState().finished("/crews/exam.yaml", coverageReport());
    expect(store.getState().heats["rule:teacher:1:end"]).toBe("all");
    expect(store.getState().shown).toBe(false);
    store.getState().show(true);
    expect(store.getState().shown).toBe(true);
    // Another crew opened: its own test, nothing of the last one's.
    store.getState().follow("/crews/other.yaml");
    expect([store.getState().report, store.getState().heats]).toEqual([null, {}]);
    // A test that finishes after its crew was left is dropped.
    store.getState().finished("/crews/exam.yaml", coverageReport());
    expect(store.getState().report).toBe(null);
    store.getState().started("/crews/other.yaml");
    store.getState().failed("/crews/other.yaml", "the crew has errors");
    expect([store.getState().running, store.getState().error]).toEqual([false, "the crew has errors"]);
  });
});
