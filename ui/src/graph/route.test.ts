import { describe, expect, it } from "vitest";
import type { Box } from "./layout";
import { pathCrosses, routeAround, segmentCrosses, simplify } from "./route";

const card = (x: number, y: number, width = 232, height = 100): Box => ({ x, y, width, height });

/** Every segment of a route is horizontal or vertical. */
const orthogonal = (points: { x: number; y: number }[]) =>
  points.slice(1).every((p, i) => Math.abs(p.x - points[i].x) < 0.5 || Math.abs(p.y - points[i].y) < 0.5);

describe("routeAround", () => {
  it("goes straight when nothing is in the way", () => {
    const route = routeAround({ x: 232, y: 50, side: "right" }, { x: 400, y: 50, side: "left" }, [card(0, 0), card(400, 0)]);
    expect(route).toEqual([
      { x: 232, y: 50 },
      { x: 400, y: 50 },
    ]);
  });

  it("goes around a card that stands between the two ends", () => {
    // Teacher → Reporter with the Student card right between them (the exam's
    // "then" arrow ran through the Reporter card like this).
    const boxes = [card(0, 0), card(300, 0), card(600, 0)];
    const route = routeAround({ x: 232, y: 50, side: "right" }, { x: 600, y: 50, side: "left" }, boxes);
    expect(orthogonal(route)).toBe(true);
    expect(pathCrosses(route, boxes)).toBe(false);
    expect(route[0]).toEqual({ x: 232, y: 50 });
    expect(route[route.length - 1]).toEqual({ x: 600, y: 50 });
  });

  it("comes back around for an arrow that points backwards", () => {
    // A reply sent back to an agent to the left: out of the right side, around, into the left side.
    const boxes = [card(0, 0), card(400, 0)];
    const route = routeAround({ x: 632, y: 50, side: "right" }, { x: 0, y: 50, side: "left" }, boxes);
    expect(pathCrosses(route, boxes)).toBe(false);
    expect(route[1].x).toBeGreaterThan(632); // leaves to the right first
    expect(route[route.length - 2].x).toBeLessThan(0); // and comes in from the left
  });

  it("leaves and enters through the sides of a top-to-bottom layout", () => {
    const boxes = [card(0, 0), card(0, 300)];
    const route = routeAround({ x: 116, y: 100, side: "bottom" }, { x: 116, y: 300, side: "top" }, boxes);
    expect(route).toEqual([
      { x: 116, y: 100 },
      { x: 116, y: 300 },
    ]);
  });

  it("keeps its distance from the boxes it passes", () => {
    const boxes = [card(0, 0), card(300, 60), card(600, 0)];
    const route = routeAround({ x: 232, y: 50, side: "right" }, { x: 600, y: 50, side: "left" }, boxes, { margin: 12 });
    const roomy = boxes.map((b) => ({ x: b.x - 11, y: b.y - 11, width: b.width + 22, height: b.height + 22 }));
    // Only the ends touch their own cards' margins.
    expect(pathCrosses(route.slice(1, -1), [roomy[1]])).toBe(false);
  });
});

describe("segmentCrosses", () => {
  it("counts passing through a box, not running along its border", () => {
    const box = card(0, 0, 100, 100);
    expect(segmentCrosses({ x: -10, y: 50 }, { x: 110, y: 50 }, box)).toBe(true);
    expect(segmentCrosses({ x: -10, y: 0 }, { x: 110, y: 0 }, box)).toBe(false);
    expect(segmentCrosses({ x: 100, y: 50 }, { x: 200, y: 50 }, box)).toBe(false);
    expect(segmentCrosses({ x: -10, y: -10 }, { x: 110, y: 110 }, box)).toBe(true);
  });
});

describe("simplify", () => {
  it("drops repeated points and points along a straight run", () => {
    expect(
      simplify([
        { x: 0, y: 0 },
        { x: 0, y: 0 },
        { x: 10, y: 0 },
        { x: 20, y: 0 },
        { x: 20, y: 10 },
      ]),
    ).toEqual([
      { x: 0, y: 0 },
      { x: 20, y: 0 },
      { x: 20, y: 10 },
    ]);
  });
});
