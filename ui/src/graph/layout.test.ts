import { describe, expect, it } from "vitest";
import { examGraph } from "./fixtures";
import type { GraphView } from "../bindings/GraphView";
import { absoluteBox, chooseLayout, fitScale, flowOrder, layoutGraph, layoutIn, nodeSize } from "./layout";

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

describe("layoutIn (left to right)", async () => {
  const layout = await layoutIn(examGraph, "RIGHT");

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

/** The exam crew without its fallback into the group (an edge ELK cannot route downwards). */
const examDown: GraphView = { ...examGraph, edges: examGraph.edges.filter((e) => e.kind !== "fallback") };

describe("layoutIn (top to bottom)", async () => {
  const layout = await layoutIn(examDown, "DOWN");

  it("routes edges from the middle of the source's bottom to the middle of the target's top", () => {
    const route = layout.edges.get("rule:teacher:1:end")!;
    const teacher = absoluteBox(examDown, layout, "agent:teacher")!;
    const end = absoluteBox(examDown, layout, "end")!;
    expect(route.points[0]).toEqual({ x: teacher.x + teacher.width / 2, y: teacher.y + teacher.height });
    expect(route.points[route.points.length - 1]).toEqual({ x: end.x + end.width / 2, y: end.y });
  });

  it("reads top to bottom from the entry agent", () => {
    const teacher = absoluteBox(examDown, layout, "agent:teacher")!;
    expect(absoluteBox(examDown, layout, "end")!.y).toBeGreaterThan(teacher.y);
  });
});

/** A chain of `n` agents, each handing on to the next, the last one finishing. */
function chain(n: number): GraphView {
  const ids = Array.from({ length: n }, (_, i) => `a${i}`);
  const base = { role: null, model: null, description: null, tags: [], parent: null, terminal: false, waits: false, group: null };
  return {
    nodes: ids.map((id, i) => ({ ...base, id: `agent:${id}`, kind: "agent" as const, label: id, agent: id, entry: i === 0 })),
    edges: ids.slice(1).map((id, i) => ({
      id: `rule:a${i}:0:agent:${id}`,
      source: `agent:a${i}`,
      target: `agent:${id}`,
      kind: "signal" as const,
      label: "[NEXT]",
      signal: "[NEXT]",
      behavior: "route" as const,
      description: "hands the work on",
      rule: { agent: `a${i}`, index: 0 },
    })),
  };
}

describe("layoutGraph", () => {
  it("draws a long chain downwards in a squarish canvas, where it is larger", async () => {
    const layout = await layoutGraph(chain(6), 1.2);
    expect(layout.direction).toBe("DOWN");
    const across = await layoutIn(chain(6), "RIGHT");
    expect(fitScale(layout, 1.2)).toBeGreaterThan(fitScale(across, 1.2));
  });

  it("draws the same chain across a wide canvas", async () => {
    expect((await layoutGraph(chain(6), 6)).direction).toBe("RIGHT");
  });

  it("still lays out a graph when one direction cannot be laid out", async () => {
    // In a tall canvas downwards would win, but ELK refuses the fallback into the group.
    const layout = await layoutGraph(examGraph, 0.5);
    for (const node of examGraph.nodes) expect(layout.nodes.has(node.id), node.id).toBe(true);
  });

  it("keeps left to right unless downwards is clearly larger", () => {
    const across = { width: 1000, height: 200 };
    // In a 2:1 canvas `across` fits at 1/500; downwards must beat that by a tenth.
    // Downwards, the height decides: a 500-wide drawing fits across (2/500) anyway.
    expect(chooseLayout(across, { width: 500, height: 520 }, 2)).toBe(across); // 1/520: smaller
    expect(chooseLayout(across, { width: 500, height: 472 }, 2)).toBe(across); // 1/472: only 6 % larger
    const down = { width: 500, height: 400 };
    expect(chooseLayout(across, down, 2)).toBe(down); // 1/400: 25 % larger
  });
});
