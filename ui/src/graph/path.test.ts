import { describe, expect, it } from "vitest";
import { midpoint, near, roundedPath } from "./path";

describe("roundedPath", () => {
  it("draws a straight segment as a plain line", () => {
    expect(roundedPath([{ x: 0, y: 0 }, { x: 10, y: 0 }])).toBe("M 0 0 L 10 0");
  });

  it("rounds each corner with a quadratic curve through the corner point", () => {
    const d = roundedPath([{ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 100, y: 100 }], 8);
    expect(d).toBe("M 0 0 L 92 0 Q 100 0 100 8 L 100 100");
  });

  it("shrinks the radius on short segments so curves never overshoot", () => {
    const d = roundedPath([{ x: 0, y: 0 }, { x: 4, y: 0 }, { x: 4, y: 50 }], 8);
    expect(d).toContain("L 2 0 Q 4 0 4 2");
  });
});

describe("midpoint and near", () => {
  it("finds the point halfway along a bent line", () => {
    expect(midpoint([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }])).toEqual({ x: 10, y: 0 });
  });

  it("tells whether a handle is still where the layout put it", () => {
    expect(near({ x: 100, y: 50 }, 104, 47)).toBe(true);
    expect(near({ x: 100, y: 50 }, 160, 50)).toBe(false);
    expect(near(undefined, 0, 0)).toBe(false);
  });
});
