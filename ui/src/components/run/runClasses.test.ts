// The graph's look during a run: each node's class at each moment of the exam
// crew's run, the arrows' counts and pulse, and which arrow a tracker line means.
import { describe, expect, it } from "vitest";
import type { RunStatus } from "../../bindings/RunStatus";
import { events, examRun, failedRun, paced, pausedRun, scoringRun } from "../../run/fixtures";
import { fromEvents } from "../../run/reducer";
import { examDocument, signalEdge } from "../inspector/testing";
import type { ViewEdge } from "../../bindings/ViewEdge";
import { type Arrow, arrowsOf, type NodeRef } from "../../graph/refs";
import { edgeForHandoff, edgeRunInfo, nodeRunClass, runTone } from "./runClasses";

const at = (seq: number) => fromEvents(examRun().filter((e) => e.seq <= seq));

/** The graph's nodes as their data says what they are. */
const node = {
  agent: (agent: string): NodeRef => ({ kind: "agent", agent, group: null }),
  round: { kind: "group", agent: null, group: "exam_round" } as NodeRef,
  end: { kind: "end", agent: null, group: null } as NodeRef,
  wait: { kind: "wait", agent: null, group: null } as NodeRef,
};

/** An edge between two agents. */
const between = (from: string, to: string, view: ViewEdge): Arrow => ({ view, source: node.agent(from), target: node.agent(to) });

describe("nodeRunClass", () => {
  it("nothing without a run", () => {
    expect(nodeRunClass(node.agent("teacher"), null)).toBe("");
    expect(nodeRunClass(node.end, null)).toBe("");
  });

  it("the agent at work glows, then shows done", () => {
    expect(nodeRunClass(node.agent("teacher"), at(1))).toBe("run-active");
    expect(nodeRunClass(node.agent("student"), at(1))).toBe("");
    expect(nodeRunClass(node.agent("teacher"), at(3))).toBe("run-done");
  });

  it("a group lights while its members work, and all its members at once", () => {
    const view = at(6);
    expect(nodeRunClass(node.round, view)).toBe("run-active");
    expect(nodeRunClass(node.agent("student"), view)).toBe("run-active");
    expect(nodeRunClass(node.agent("reporter"), view)).toBe("run-active");
    expect(nodeRunClass(node.round, at(16))).toBe("run-done");
  });

  it("End shows how the run ended, only once it has", () => {
    expect(nodeRunClass(node.end, at(20))).toBe("");
    expect(nodeRunClass(node.end, fromEvents(examRun()))).toBe("run-end run-end-finished");
    expect(nodeRunClass(node.end, fromEvents(failedRun()))).toBe("run-end run-end-failed");
    expect(nodeRunClass(node.end, fromEvents(pausedRun()))).toBe("");
  });

  it("Wait and the waiting agent light up while the crew waits for you", () => {
    const view = fromEvents(pausedRun());
    expect(nodeRunClass(node.wait, view)).toBe("run-waiting");
    expect(nodeRunClass(node.agent("teacher"), view)).toBe("run-waiting");
    expect(nodeRunClass(node.wait, at(5))).toBe("");
  });

  it("a run paused before an agent's turn waits at that agent, not at Wait (no arrow led there)", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Fractions exam", input: "Begin." },
        { type: "breakpoints_set", agents: ["teacher"] },
        { type: "paused", agent: "teacher", breakpoint: true },
        { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 0 },
      ]),
    );
    expect(nodeRunClass(node.wait, view)).toBe("");
    expect(nodeRunClass(node.agent("teacher"), view)).toBe("run-waiting");
  });

  it("a failed agent turns red", () => {
    expect(nodeRunClass(node.agent("student"), fromEvents(failedRun()))).toBe("run-failed");
  });
});

describe("runTone", () => {
  it("sorts every status into five looks", () => {
    const all: RunStatus[] = ["running", "terminated", "completed", "paused", "max_handoffs", "no_route", "signal_failure", "loop_detected", "cancelled", "failed"];
    expect(all.map(runTone)).toEqual([
      "running",
      "finished",
      "finished",
      "waiting",
      "stopped",
      "stopped",
      "stopped",
      "stopped",
      "stopped",
      "failed",
    ]);
  });
});

describe("edgeRunInfo", () => {
  it("counts the arrows taken by their ends and pulses the last one", () => {
    const view = fromEvents(paced(examRun().filter((e) => e.seq <= 17)));
    expect(edgeRunInfo({ source: node.agent("teacher"), target: node.round }, view)).toEqual({ count: 1, pulse: false });
    expect(edgeRunInfo({ source: node.round, target: node.agent("teacher") }, view)).toEqual({ count: 1, pulse: true });
    expect(edgeRunInfo({ source: node.agent("teacher"), target: node.end }, view)).toEqual({ count: 0, pulse: false });
    expect(edgeRunInfo({ source: node.agent("teacher"), target: node.end }, fromEvents(examRun()))).toEqual({ count: 1, pulse: true });
    expect(edgeRunInfo({ source: node.agent("teacher"), target: node.end }, null)).toEqual({ count: 0, pulse: false });
  });
});

describe("edgeForHandoff", () => {
  const edges = arrowsOf(examDocument().graph);

  it("finds the signal's arrow into a group", () => {
    const view = fromEvents(examRun());
    expect(edgeForHandoff(view.handoffs[0], edges)).toBe("rule:teacher:0:group:exam_round");
  });

  it("prefers the signal's own arrow over an 'otherwise' arrow between the same cards, and the reverse for a fallback", () => {
    const both = [
      between("teacher", "student", { ...signalEdge("teacher", 0, "agent:student", "[ASK]", "route"), id: "fallback:teacher:agent:student", kind: "fallback", signal: null, behavior: null }),
      between("teacher", "student", signalEdge("teacher", 0, "agent:student", "[ASK]", "route")),
    ];
    const signalled = fromEvents(
      events([
        { type: "agent_started", agent: "teacher", step: 1 },
        { type: "agent_response", agent: "teacher", content: "[ASK]" },
        { type: "signal_matched", agent: "teacher", signal: "[ASK]", level: "exact", behavior: "route", target: "student" },
        { type: "handoff", from: "teacher", to: "student", reason: "signal [ASK] (exact)", handoff_count: 1 },
        { type: "agent_started", agent: "student", step: 2 },
        { type: "agent_response", agent: "student", content: "no signal here" },
        { type: "handoff", from: "student", to: "teacher", reason: "no signal matched; fallback to its handoff target", handoff_count: 2 },
      ]),
    );
    expect(edgeForHandoff(signalled.handoffs[0], both)).toBe("rule:teacher:0:agent:student");
    const fallback = { ...signalled.handoffs[0], signal: null, reason: "no signal matched; fallback to its handoff target" };
    expect(edgeForHandoff(fallback, both)).toBe("fallback:teacher:agent:student");
    expect(edgeForHandoff(signalled.handoffs[1], both)).toBeNull();
  });

  it("a scoring handoff finds the supervisor's arrow", () => {
    const view = fromEvents(scoringRun());
    const score = between("triage", "billing", { ...signalEdge("triage", 0, "agent:billing", "", null), id: "score:triage:agent:billing", kind: "score", signal: null });
    expect(edgeForHandoff(view.handoffs[0], [score])).toBe("score:triage:agent:billing");
  });
});
