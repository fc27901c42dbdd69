// SVG paths for ELK's orthogonal routes, with rounded corners.
import type { Point } from "./layout";

/** A polyline through `points` whose corners are rounded with `radius`. */
export function roundedPath(points: Point[], radius = 8): string {
  if (points.length === 0) return "";
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [prev, corner, next] = [points[i - 1], points[i], points[i + 1]];
    const r = Math.min(radius, distance(prev, corner) / 2, distance(corner, next) / 2);
    const a = towards(corner, prev, r);
    const b = towards(corner, next, r);
    d += ` L ${a.x} ${a.y} Q ${corner.x} ${corner.y} ${b.x} ${b.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}

function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

function towards(from: Point, to: Point, length: number): Point {
  const d = distance(from, to) || 1;
  return { x: from.x + ((to.x - from.x) / d) * length, y: from.y + ((to.y - from.y) / d) * length };
}

/** The point halfway along a polyline. */
export function midpoint(points: Point[]): Point {
  const lengths = points.slice(1).map((p, i) => distance(points[i], p));
  let remaining = lengths.reduce((a, b) => a + b, 0) / 2;
  for (let i = 0; i < lengths.length; i++) {
    if (remaining <= lengths[i]) return towards(points[i], points[i + 1], remaining);
    remaining -= lengths[i];
  }
  return points[points.length - 1] ?? { x: 0, y: 0 };
}

/** True when `p` is within `tolerance` of (x, y). */
export function near(p: Point | undefined, x: number, y: number, tolerance = 10): boolean {
  return !!p && Math.abs(p.x - x) <= tolerance && Math.abs(p.y - y) <= tolerance;
}
