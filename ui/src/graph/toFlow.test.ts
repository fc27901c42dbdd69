import { describe, expect, it } from "vitest";
import { toEditorFlow } from "./editorFlow";
import { examGraph } from "./fixtures";
import { badgesByTarget } from "./problems";
import { behaviorColor } from "./style";

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
