import { describe, expect, it } from "vitest";
import { toEditorFlow } from "./editorFlow";
import { examGraph } from "./fixtures";
import { badgesByTarget } from "./problems";
import { arrowWords, cardInfo } from "./toFlow";
import { behaviorColor, edgeLabel } from "./style";
import { agentView } from "../editor/fixtures";

// The edges and badges as React Flow gets them (toFlowEdge, through the editor's mapping).
describe("toFlowEdge", () => {
  const { edges } = toEditorFlow(examGraph, {}, new Map());

  it("colours signal edges by behaviour and dashes fallbacks", () => {
    const question = edges.find((e) => e.id === "rule:teacher:0:group:round")!;
    expect(question.data!.color).toBe(behaviorColor.parallel);
    expect(question.data!.dashed).toBe(false);
    expect(question.markerEnd).toMatchObject({ color: behaviorColor.parallel });
    expect([question.sourceHandle, question.targetHandle]).toEqual(["out", "in"]);
    const fallback = edges.find((e) => e.id.startsWith("fallback"))!;
    expect(fallback.data!.dashed).toBe(true);
    expect(fallback.data!.label).toBe("otherwise");
  });

  it("labels pills with words first and the signal second, unless the words are long", () => {
    expect(edges.find((e) => e.id === "rule:teacher:0:group:round")!.data!.label).toBe("asks a question · [QUESTION]");
    expect(edges.find((e) => e.id === "rule:teacher:1:end")!.data!.label).toBe("[END_EXAM]");
  });

  it("puts problem badges on the nodes and edges they concern", () => {
    const badges = badgesByTarget([
      {
        diagnostic: {
          severity: "error",
          problem: { code: "unknown_target", signal: "[X]", target: "y" },
          message: "signal '[X]' targets unknown agent 'y'",
          plain: "[X] leads to 'y', but there is no agent or group with that id.",
          location: null,
          subject: { kind: "rule", agent: "teacher", index: 0 },
        },
        targets: ["agent:teacher", "rule:teacher:0:group:round"],
      },
    ]);
    const flow = toEditorFlow(examGraph, {}, badges);
    expect(flow.nodes.find((n) => n.id === "agent:teacher")!.data.badge!.severity).toBe("error");
    expect(flow.nodes.find((n) => n.id === "agent:student")!.data.badge).toBeUndefined();
    const edge = flow.edges.find((e) => e.id === "rule:teacher:0:group:round")!;
    expect(edge.className).toContain("has-error");
  });
});

describe("what the canvas says in words", () => {
  it("shows a line signal as its agent writes it, its words once when they only repeat it", () => {
    const written = new Map([
      ["review-ready", "READY_FOR_REVIEW: <id>"],
      ["needs-clarification", "SEEKING_CLARIFICATION"],
    ]);
    const signal = (name: string, description: string) => ({ kind: "signal" as const, label: name, signal: name, description });
    expect(edgeLabel(signal("review-ready", "ready for review"), written)).toBe("READY_FOR_REVIEW: <id>");
    expect(edgeLabel(signal("needs-clarification", "needs an answer from you"), written)).toBe("needs an answer from you · SEEKING_CLARIFICATION");
    // Without the crew's lines, the name (as before).
    expect(edgeLabel(signal("review-ready", "ready for review"))).toBe("ready for review · review-ready");
  });

  it("announces arrows by the names of their ends and the signal in words", () => {
    const names = new Map(examGraph.nodes.map((n) => [n.id, n.label]));
    const [question, , then, otherwise] = examGraph.edges;
    expect(arrowWords(question, names, edgeLabel(question))).toBe("Teacher to round: asks a question, when the reply says [QUESTION]");
    expect(arrowWords(then, names)).toBe("round to Teacher: where the work goes after a group");
    expect(arrowWords(otherwise, names)).toBe("Teacher to Student: otherwise, when no signal matches");
  });

  it("says the automatic fallback on a card, but not on a member only its group reaches", () => {
    const agent = (id: string, name: string, automatic_fallback: string | null) => agentView(id, name, { automatic_fallback });
    const view = { ...examGraph, edges: examGraph.edges.filter((e) => e.kind !== "fallback") };
    const cards = cardInfo({ agents: [agent("teacher", "Teacher", "student"), agent("student", "Student", "teacher"), agent("reporter", "Reporter", "teacher")] }, view);
    expect(cards.get("agent:teacher")).toEqual({ fallback: "Student", runtime: false });
    expect(cards.has("agent:student")).toBe(false);
    // A member some arrow leads to directly can get a reply without a signal.
    const reached = cardInfo({ agents: [agent("teacher", "Teacher", null), agent("student", "Student", "teacher")] }, examGraph);
    expect(reached.get("agent:student")?.fallback).toBe("Teacher");
  });
});
