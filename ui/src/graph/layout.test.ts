import { describe, expect, it } from "vitest";
import { examGraph } from "./fixtures";
import { absoluteBox, flowOrder, layoutGraph, nodeSize } from "./layout";

describe("flowOrder", () => {
  it("starts at the entry agent and follows the edges breadth first", () => {
    expect(flowOrder(examGraph).map((n) => n.id)).toEqual([
      "agent:teacher",
      "group:round",
      "end",
      "agent:student",
      "agent:reporter",
    ]);
  });
});

describe("layoutGraph", async () => {
  const layout = await layoutGraph(examGraph);

  it("places every node with the size its component draws", () => {
    for (const node of examGraph.nodes) expect(layout.nodes.has(node.id), node.id).toBe(true);
    expect(layout.nodes.get("agent:teacher")).toMatchObject(nodeSize.agent);
    expect(layout.nodes.get("end")).toMatchObject(nodeSize.end);
  });

  it("draws members inside their group frame, below its title", () => {
    const frame = absoluteBox(examGraph, layout, "group:round")!;
    for (const member of ["agent:student", "agent:reporter"]) {
      const box = absoluteBox(examGraph, layout, member)!;
      expect(box.x).toBeGreaterThanOrEqual(frame.x);
      expect(box.y).toBeGreaterThanOrEqual(frame.y + 44);
      expect(box.x + box.width).toBeLessThanOrEqual(frame.x + frame.width);
      expect(box.y + box.height).toBeLessThanOrEqual(frame.y + frame.height);
    }
  });

  it("reads left to right from the entry agent", () => {
    const teacher = absoluteBox(examGraph, layout, "agent:teacher")!;
    for (const other of ["group:round", "end"]) expect(absoluteBox(examGraph, layout, other)!.x).toBeGreaterThan(teacher.x);
  });

  it("routes edges from the middle of the source's right side to the middle of the target's left side", () => {
    // These are where React Flow draws the handles, so the routes meet the cards.
    const route = layout.edges.get("rule:teacher:1:end")!;
    const teacher = absoluteBox(examGraph, layout, "agent:teacher")!;
    const end = absoluteBox(examGraph, layout, "end")!;
    expect(route.points[0]).toEqual({ x: teacher.x + teacher.width, y: teacher.y + teacher.height / 2 });
    expect(route.points[route.points.length - 1]).toEqual({ x: end.x, y: end.y + end.height / 2 });
    expect(route.label).toBeDefined();
  });

  it("keeps nodes of the same frame from overlapping", () => {
    const boxes = examGraph.nodes.filter((n) => !n.parent).map((n) => layout.nodes.get(n.id)!);
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart).toBe(true);
      }
    }
  });
});
