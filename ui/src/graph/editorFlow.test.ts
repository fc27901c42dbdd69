import { describe, expect, it } from "vitest";
import { fillPositions, groupDrop, groupFrames, groupPadding, placeDropTargets, toEditorFlow, withDropTargets } from "./editorFlow";
import { examGraph } from "./fixtures";
import { groupHeader, type Layout, nodeSize } from "./layout";

// The exam graph: teacher; group:round holding student and reporter; end.
const positions = {
  "agent:teacher": { x: 0, y: 100 },
  "agent:student": { x: 400, y: 60 },
  "agent:reporter": { x: 400, y: 200 },
  end: { x: 800, y: 120 },
};

describe("toEditorFlow", () => {
  const { nodes, edges } = toEditorFlow(examGraph, positions, new Map());

  it("puts each node where the person put it, frames first and underneath", () => {
    expect(nodes[0].id).toBe("group:round");
    expect(nodes[0].zIndex).toBe(-1);
    expect(nodes.find((n) => n.id === "agent:student")?.position).toEqual({ x: 400, y: 60 });
    expect(nodes.every((n) => n.parentId === undefined)).toBe(true);
    expect(edges.map((e) => e.id).sort()).toEqual(examGraph.edges.map((e) => e.id).sort());
  });

  it("draws a group's frame around its members", () => {
    const frame = groupFrames(examGraph, positions).get("group:round");
    expect(frame).toEqual({
      x: 400 - groupPadding,
      y: 60 - groupPadding - groupHeader,
      width: 232 + 2 * groupPadding,
      height: 200 + nodeSize.agent.height - 60 + 2 * groupPadding + groupHeader,
    });
  });
});

describe("groupDrop", () => {
  it("joins a group when an agent is dropped inside its frame", () => {
    const moved = { ...positions, "agent:teacher": { x: 410, y: 120 } };
    expect(groupDrop(examGraph, moved, "agent:teacher")).toEqual({ agent: "teacher", join: ["round"], leave: [] });
  });

  it("leaves a group when a member is dropped outside the frame of the others", () => {
    const moved = { ...positions, "agent:reporter": { x: 900, y: 600 } };
    expect(groupDrop(examGraph, moved, "agent:reporter")).toEqual({ agent: "reporter", join: [], leave: ["round"] });
  });

  it("changes nothing when a member moves within its group", () => {
    const moved = { ...positions, "agent:reporter": { x: 420, y: 90 } };
    expect(groupDrop(examGraph, moved, "agent:reporter")).toEqual({ agent: "reporter", join: [], leave: [] });
    expect(groupDrop(examGraph, positions, "agent:teacher")).toEqual({ agent: "teacher", join: [], leave: [] });
  });
});

describe("fillPositions", () => {
  it("keeps the person's positions and takes the layout's for the rest", () => {
    const layout: Layout = {
      direction: "RIGHT",
      nodes: new Map([
        ["agent:teacher", { x: 1, y: 2, width: 232, height: 88 }],
        ["group:round", { x: 300, y: 10, width: 280, height: 240 }],
        ["agent:student", { x: 20, y: 56, width: 232, height: 88 }],
        ["agent:reporter", { x: 20, y: 150, width: 232, height: 88 }],
        ["end", { x: 700, y: 30, width: 104, height: 48 }],
      ]),
      edges: new Map(),
      width: 900,
      height: 400,
    };
    const filled = fillPositions(examGraph, { "agent:teacher": { x: 5, y: 5 } }, layout);
    expect(filled["agent:teacher"]).toEqual({ x: 5, y: 5 });
    expect(filled["agent:student"]).toEqual({ x: 320, y: 66 });
    expect(filled.end).toEqual({ x: 700, y: 30 });
    expect(filled["group:round"]).toBeUndefined();
  });
});

describe("drop targets", () => {
  it("adds the Wait node (End is already drawn) and places it beside End, clear of the rest", () => {
    const view = withDropTargets(examGraph);
    expect(view.nodes.filter((n) => n.kind === "end")).toHaveLength(1);
    expect(view.nodes.find((n) => n.id === "wait")?.kind).toBe("wait");
    const placed = placeDropTargets(view, positions);
    expect(placed.end).toEqual(positions.end);
    expect(placed.wait).toEqual({ x: 800 + 104 + 40, y: 120 });
    // Something already there: it moves until it is clear.
    const crowded = placeDropTargets(view, { ...positions, "agent:reporter": { x: 940, y: 100 } });
    expect(crowded.wait).toEqual({ x: 944 + 2 * (104 + 80), y: 120 });
  });
});
