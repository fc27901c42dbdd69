import { describe, expect, it } from "vitest";
import type { GraphView } from "../bindings/GraphView";
import { drawArrows, pillHeight } from "./arrows";
import { groupFrames, layoutPositions, nodeBox } from "./editorFlow";
import { examGraph } from "./fixtures";
import { type Box, labelWidth, layoutIn } from "./layout";
import { pathCrosses } from "./route";
import { edgeLabel } from "./style";

const labels = (view: GraphView) => new Map(view.edges.map((e) => [e.id, edgeLabel(e)]));

/** The cards (not frames) an edge must not pass through: all but its own two ends. */
function cardsBesides(view: GraphView, positions: Record<string, { x: number; y: number }>, edgeId: string): Box[] {
  const edge = view.edges.find((e) => e.id === edgeId);
  return view.nodes
    .filter((n) => n.kind !== "group" && n.id !== edge?.source && n.id !== edge?.target && positions[n.id])
    .map((n) => nodeBox(n, positions));
}

const apart = (a: Box, b: Box) => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;

describe("drawArrows", () => {
  it("keeps the automatic layout's routes and label places while the cards stay where it put them", async () => {
    const layout = await layoutIn(examGraph, "RIGHT");
    const positions = layoutPositions(examGraph, layout);
    const drawn = drawArrows({ view: examGraph, positions, direction: "RIGHT", layout: layout.edges, labels: labels(examGraph) });
    for (const edge of examGraph.edges) {
      expect(drawn.get(edge.id)?.points, edge.id).toEqual(layout.edges.get(edge.id)?.points);
    }
  });

  it("routes around the cards of a crew whose cards were moved (a reopened crew)", () => {
    // The exam as it was saved after a top-to-bottom layout, drawn left to right:
    // the group's "then" arrow would run straight through the Reporter card.
    const positions = {
      "agent:teacher": { x: 400, y: 0 },
      "agent:student": { x: 60, y: 300 },
      "agent:reporter": { x: 320, y: 300 },
      end: { x: 700, y: 220 },
    };
    const drawn = drawArrows({ view: examGraph, positions, direction: "RIGHT", layout: new Map(), labels: labels(examGraph) });
    for (const edge of examGraph.edges) {
      const route = drawn.get(edge.id);
      expect(route, edge.id).toBeDefined();
      expect(pathCrosses(route?.points ?? [], cardsBesides(examGraph, positions, edge.id)), `${edge.id} crosses a card`).toBe(false);
    }
    // Arrows that have nothing to do with the group go around its frame.
    const frame = groupFrames(examGraph, positions).get("group:round") as Box;
    expect(pathCrosses(drawn.get("rule:teacher:1:end")?.points ?? [], [frame])).toBe(false);
  });

  it("takes an arrow out of a group's frame around the frame, and keeps arrows off each other", () => {
    // The exam laid out downwards: the group's "then" arrow leaves its frame's
    // bottom for the Teacher above; it went back up through the frame, along the
    // Teacher's own arrow into the group.
    const positions = {
      "agent:teacher": { x: 300, y: 0 },
      "agent:student": { x: 60, y: 300 },
      "agent:reporter": { x: 320, y: 300 },
      end: { x: 700, y: 220 },
    };
    const drawn = drawArrows({ view: examGraph, positions, direction: "DOWN", layout: new Map(), labels: labels(examGraph) });
    const frame = groupFrames(examGraph, positions).get("group:round") as Box;
    const then = drawn.get("next:round:agent:teacher")?.points ?? [];
    expect(pathCrosses(then, [{ x: frame.x + 1, y: frame.y + 1, width: frame.width - 2, height: frame.height - 2 }])).toBe(false);
    const question = drawn.get("rule:teacher:0:group:round")?.points ?? [];
    const shared = (a: { x: number; y: number }[], b: { x: number; y: number }[]) =>
      a.slice(1).some((p, i) =>
        b.slice(1).some((q, k) => {
          const [a0, b0] = [a[i], b[k]];
          const vertical = p.x === a0.x && q.x === b0.x && p.x === q.x;
          const overlap = Math.min(Math.max(p.y, a0.y), Math.max(q.y, b0.y)) - Math.max(Math.min(p.y, a0.y), Math.min(q.y, b0.y));
          return vertical && overlap > 2;
        }),
      );
    expect(shared(then, question)).toBe(false);
  });

  it("puts pills where they cover no card and no other pill", () => {
    const positions = {
      "agent:teacher": { x: 0, y: 0 },
      "agent:student": { x: 420, y: 40 },
      "agent:reporter": { x: 420, y: 220 },
      end: { x: 420, y: -200 },
    };
    const drawn = drawArrows({ view: examGraph, positions, direction: "RIGHT", layout: new Map(), labels: labels(examGraph) });
    const pills = examGraph.edges.map((e) => {
      const at = drawn.get(e.id)?.label as { x: number; y: number };
      const width = labelWidth(edgeLabel(e));
      return { x: at.x - width / 2, y: at.y - pillHeight / 2, width, height: pillHeight };
    });
    const cards = examGraph.nodes.filter((n) => n.kind !== "group").map((n) => nodeBox(n, positions));
    for (const [i, pill] of pills.entries()) {
      for (const card of cards) expect(apart(pill, card), `pill ${examGraph.edges[i].id} on a card`).toBe(true);
      for (const other of pills.slice(i + 1)) expect(apart(pill, other), `pill ${examGraph.edges[i].id} on another pill`).toBe(true);
    }
  });

  it("puts the pill of an arrow too short for it where it covers nothing, not on the card beyond", () => {
    // The Teacher dragged close to the group (a reopened exam): the question's arrow
    // is shorter than its pill; the Reporter sits just below its end.
    const positions = { "agent:teacher": { x: 21, y: 30 }, "agent:student": { x: 400, y: 0 }, "agent:reporter": { x: 400, y: 115 }, end: { x: 376, y: 250 } };
    const drawn = drawArrows({ view: examGraph, positions, direction: "RIGHT", layout: new Map(), labels: labels(examGraph) });
    const question = examGraph.edges[0];
    const at = drawn.get(question.id)?.label as { x: number; y: number };
    const width = labelWidth(edgeLabel(question));
    const pill = { x: at.x - width / 2, y: at.y - pillHeight / 2, width, height: pillHeight };
    for (const node of examGraph.nodes.filter((n) => n.kind !== "group")) expect(apart(pill, nodeBox(node, positions)), node.id).toBe(true);
  });

  it("routes nothing in a crew too big to route on every change", () => {
    const nodes = Array.from({ length: 301 }, (_, i) => ({ ...examGraph.nodes[1], id: `agent:a${i}`, agent: `a${i}` }));
    const view: GraphView = { nodes, edges: [] };
    expect(drawArrows({ view, positions: {}, direction: "RIGHT", layout: new Map(), labels: new Map() }).size).toBe(0);
  });
});
