import { describe, expect, it } from "vitest";
import { examGraph } from "./fixtures";
import type { Layout } from "./layout";
import { badgesByTarget } from "./problems";
import { behaviorColor } from "./style";
import { toFlow } from "./toFlow";

const layout: Layout = {
  direction: "RIGHT",
  nodes: new Map([
    ["group:round", { x: 300, y: 10, width: 280, height: 240 }],
    ["agent:teacher", { x: 20, y: 100, width: 232, height: 88 }],
    ["agent:student", { x: 20, y: 56, width: 232, height: 88 }],
    ["agent:reporter", { x: 20, y: 150, width: 232, height: 88 }],
    ["end", { x: 300, y: 300, width: 104, height: 48 }],
  ]),
  edges: new Map([["rule:teacher:0:group:round", { points: [{ x: 252, y: 144 }, { x: 300, y: 130 }] }]]),
  width: 600,
  height: 400,
};

describe("toFlow", () => {
  const { nodes, edges } = toFlow(examGraph, layout, new Map());

  it("puts every group frame before the nodes inside it, as React Flow requires", () => {
    const frame = nodes.findIndex((n) => n.id === "group:round");
    for (const member of ["agent:student", "agent:reporter"]) {
      expect(nodes.findIndex((n) => n.id === member)).toBeGreaterThan(frame);
    }
  });

  it("nests group members in their frame, positioned relative to it", () => {
    const student = nodes.find((n) => n.id === "agent:student")!;
    expect(student.parentId).toBe("group:round");
    expect(student.extent).toBe("parent");
    expect(student.position).toEqual({ x: 20, y: 56 });
    const teacher = nodes.find((n) => n.id === "agent:teacher")!;
    expect(teacher.parentId).toBeUndefined();
  });

  it("tells every node which way the work flows, so its handles sit where the routes end", () => {
    expect(new Set(nodes.map((n) => n.data.direction))).toEqual(new Set(["RIGHT"]));
    const down = toFlow(examGraph, { ...layout, direction: "DOWN" }, new Map());
    expect(new Set(down.nodes.map((n) => n.data.direction))).toEqual(new Set(["DOWN"]));
  });

  it("gives each node the size the layout planned and the component for its kind", () => {
    const frame = nodes.find((n) => n.id === "group:round")!;
    expect([frame.width, frame.height, frame.type]).toEqual([280, 240, "group"]);
    expect(nodes.find((n) => n.id === "end")!.type).toBe("end");
  });

  it("ignores a parent that is not in the graph instead of breaking React Flow", () => {
    const orphan = { ...examGraph, nodes: [{ ...examGraph.nodes[2], parent: "group:gone" }] };
    expect(toFlow(orphan, layout, new Map()).nodes[0].parentId).toBeUndefined();
  });

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

  it("hands the layout's route to the edge that has one", () => {
    expect(edges.find((e) => e.id === "rule:teacher:0:group:round")!.data!.route!.points).toHaveLength(2);
    expect(edges.find((e) => e.id === "rule:teacher:1:end")!.data!.route).toBeUndefined();
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
    const flow = toFlow(examGraph, layout, badges);
    expect(flow.nodes.find((n) => n.id === "agent:teacher")!.data.badge!.severity).toBe("error");
    expect(flow.nodes.find((n) => n.id === "agent:student")!.data.badge).toBeUndefined();
    const edge = flow.edges.find((e) => e.id === "rule:teacher:0:group:round")!;
    expect(edge.className).toContain("has-error");
  });
});
