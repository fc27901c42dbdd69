// Where each arrow's pill goes: on its arrow, clear of every card and of the pills
// already placed. Each pill tries the place it was given (the layout's label
// position), then points along its arrow from the middle outwards, then beside the
// arrow, then (an arrow too short for its pill, between cards close together)
// places around the arrow's middle, nearest first; it takes the first where it
// covers nothing — or, when every place covers something, the one that covers
// least. Pure.
import type { Box, Point } from "./layout";

export type PillRequest = {
  id: string;
  /** The arrow's route. */
  points: Point[];
  width: number;
  height: number;
  /** Tried first (the automatic layout's label position). */
  preferred?: Point;
};

/** At most this many places are tried along an arrow (on it, then beside it). */
const MOST_TRIES = 40;
/** Room kept around cards and between pills (px). */
const GAP = 4;

/** Each pill's centre, by request id. Requests are placed in order. */
export function placePills(requests: readonly PillRequest[], obstacles: readonly Box[]): Map<string, Point> {
  const placed: Box[] = [];
  const centres = new Map<string, Point>();
  for (const request of requests) {
    let best: Point | null = null;
    let bestCover = Number.POSITIVE_INFINITY;
    // Only what is near the arrow can be covered by its pill (as far out as the
    // places tried go: the rings around its middle).
    const reach = around(request.points, 2 * request.width, 6 * request.height);
    const nearObstacles = obstacles.filter((o) => overlaps(o, reach));
    const nearPills = placed.filter((o) => overlaps(o, reach));
    for (const at of candidates(request)) {
      const box = { x: at.x - request.width / 2, y: at.y - request.height / 2, width: request.width, height: request.height };
      const cover = covered(box, nearObstacles, GAP) + covered(box, nearPills, GAP);
      if (cover < bestCover) {
        best = at;
        bestCover = cover;
        if (cover === 0) break;
      }
    }
    const centre = best ?? request.points[0] ?? { x: 0, y: 0 };
    centres.set(request.id, centre);
    placed.push({ x: centre.x - request.width / 2, y: centre.y - request.height / 2, width: request.width, height: request.height });
  }
  return centres;
}

/** The places tried for a pill: the preferred one, then points along the arrow from
 * its middle outwards (not on its first and last stretch, where the arrow leaves a
 * card and its head points into one), then the same points with the pill beside the
 * arrow instead of on it. */
function* candidates(request: PillRequest): Generator<Point> {
  if (request.preferred) yield request.preferred;
  const { points, width, height } = request;
  const total = length(points);
  const keep = Math.min(28, total * 0.2);
  const half = total / 2 - keep;
  const step = Math.max(10, (2 * half) / (MOST_TRIES / 2));
  const distances = [total / 2];
  for (let d = step; d <= half; d += step) distances.push(total / 2 - d, total / 2 + d);
  const tries = distances.slice(0, MOST_TRIES / 2).map((d) => at(points, d));
  for (const t of tries) yield t.point;
  for (const t of tries) {
    const offset = t.horizontal ? { x: 0, y: height / 2 + 3 } : { x: width / 2 + 3, y: 0 };
    yield { x: t.point.x - offset.x, y: t.point.y - offset.y };
    yield { x: t.point.x + offset.x, y: t.point.y + offset.y };
  }
  // Rings around the middle, each a step farther out.
  const middle = tries[0]?.point ?? points[0];
  if (!middle) return;
  for (let ring = 1; ring <= 6; ring++) {
    for (let i = -ring; i <= ring; i++) {
      for (let j = -ring; j <= ring; j++) {
        if (Math.max(Math.abs(i), Math.abs(j)) !== ring) continue;
        yield { x: middle.x + i * (width / 4), y: middle.y + j * (height * 0.75) };
      }
    }
  }
}

/** The box around a polyline grown by a pill's size. */
function around(points: readonly Point[], width: number, height: number): Box {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const x = Math.min(...xs) - width;
  const y = Math.min(...ys) - height;
  return { x, y, width: Math.max(...xs) + width - x, height: Math.max(...ys) + height - y };
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The area of `box` that `others` (each grown by `gap`) cover. */
function covered(box: Box, others: readonly Box[], gap: number): number {
  let area = 0;
  for (const o of others) {
    const w = Math.min(box.x + box.width, o.x + o.width + gap) - Math.max(box.x, o.x - gap);
    const h = Math.min(box.y + box.height, o.y + o.height + gap) - Math.max(box.y, o.y - gap);
    if (w > 0 && h > 0) area += w * h;
  }
  return area;
}

function length(points: readonly Point[]): number {
  let total = 0;
  for (let k = 1; k < points.length; k++) total += Math.hypot(points[k].x - points[k - 1].x, points[k].y - points[k - 1].y);
  return total;
}

/** The point `distance` along the polyline, and whether its segment there runs across. */
function at(points: readonly Point[], distance: number): { point: Point; horizontal: boolean } {
  let remaining = distance;
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1];
    const b = points[k];
    const d = Math.hypot(b.x - a.x, b.y - a.y);
    const horizontal = Math.abs(b.x - a.x) >= Math.abs(b.y - a.y);
    if (remaining <= d && d > 0) return { point: { x: a.x + ((b.x - a.x) * remaining) / d, y: a.y + ((b.y - a.y) * remaining) / d }, horizontal };
    remaining -= d;
  }
  return { point: points[points.length - 1] ?? { x: 0, y: 0 }, horizontal: true };
}
