// Orthogonal arrows around the cards, for arrows the automatic layout (ELK) did not
// route: a crew reopened with the cards where the person put them, a card dragged,
// an agent added. The route leaves its source straight out of the side its handle
// is on, goes around every box in the way (inflated by a margin), and comes into
// its target straight through the target's side, with as few bends as it can.
//
// How: the orthogonal visibility grid of the boxes (every box's sides, pushed out by
// the margin, and the two ends' coordinates as grid lines), searched with A* where a
// step costs its length and a bend costs `bend` more. Only the boxes near the two
// ends are looked at first (a few dozen for any crew), then all of them if no way
// around was found near. Pure.
//
//   routeAround({ x: 232, y: 44, side: "right" }, { x: 400, y: 200, side: "left" }, boxes);
//   // → [{232,44}, {316,44}, {316,200}, {400,200}]
import type { Box, Point } from "./layout";

export type Side = "left" | "right" | "top" | "bottom";

/** Where an arrow leaves or enters a node: a point on its side, and the side. */
export type Port = Point & { side: Side };

/** Where other arrows already run, so a new one keeps off them: horizontal stretches
 * by their y, vertical ones by their x, each as [from, to]. */
export type Taken = { across: Map<number, [number, number][]>; down: Map<number, [number, number][]> };

export function noneTaken(): Taken {
  return { across: new Map(), down: new Map() };
}

/** Notes the route's segments as taken. */
export function take(taken: Taken, points: readonly Point[]) {
  for (let k = 1; k < points.length; k++) {
    const [a, b] = [points[k - 1], points[k]];
    if (Math.abs(a.y - b.y) < 0.5) push(taken.across, a.y, [Math.min(a.x, b.x), Math.max(a.x, b.x)]);
    else if (Math.abs(a.x - b.x) < 0.5) push(taken.down, a.x, [Math.min(a.y, b.y), Math.max(a.y, b.y)]);
  }
}

function push(lines: Map<number, [number, number][]>, at: number, span: [number, number]) {
  const key = Math.round(at);
  lines.set(key, [...(lines.get(key) ?? []), span]);
}

/** How much of the step from `a` to `b` runs along a taken stretch (px). */
function along(taken: Taken, a: Point, b: Point): number {
  const horizontal = Math.abs(a.y - b.y) < 0.5;
  const spans = (horizontal ? taken.across : taken.down).get(Math.round(horizontal ? a.y : a.x));
  if (!spans) return 0;
  const [lo, hi] = horizontal ? [Math.min(a.x, b.x), Math.max(a.x, b.x)] : [Math.min(a.y, b.y), Math.max(a.y, b.y)];
  let shared = 0;
  for (const [from, to] of spans) shared += Math.max(0, Math.min(hi, to) - Math.max(lo, from));
  return shared;
}

export type RouteOptions = {
  /** Room kept between an arrow and any box (px). */
  margin?: number;
  /** Where other arrows run: running along them costs as much again. */
  taken?: Taken;
  /** What a bend costs, in px of length. */
  bend?: number;
  /** How far around the two ends boxes are looked at first (px). */
  reach?: number;
};

const OUT: Record<Side, Point> = { left: { x: -1, y: 0 }, right: { x: 1, y: 0 }, top: { x: 0, y: -1 }, bottom: { x: 0, y: 1 } };
/** The four ways a step goes: +x, -x, +y, -y. */
const WAYS: Point[] = [
  { x: 1, y: 0 },
  { x: -1, y: 0 },
  { x: 0, y: 1 },
  { x: 0, y: -1 },
];
const wayOf = (d: Point) => WAYS.findIndex((w) => w.x === d.x && w.y === d.y);
const reverse = (way: number) => way ^ 1;
/** Above this many boxes in one search the grid gets too big to search on every
 * change; the arrow then takes the plain route (crews that big use the grid layout,
 * where rows and columns keep arrows between cards anyway). */
const MOST_BOXES = 160;

/** An orthogonal route from `from` to `to` that crosses none of `boxes` (kept
 * `margin` away from them), as few bends as it takes; the plain three-segment route
 * when there is no way around. The first and last points are `from` and `to`. */
export function routeAround(from: Port, to: Port, boxes: readonly Box[], options: RouteOptions = {}): Point[] {
  const margin = options.margin ?? 12;
  const bend = options.bend ?? 60;
  const reach = options.reach ?? 260;
  const stub = margin + 8;
  const start = { x: from.x + OUT[from.side].x * stub, y: from.y + OUT[from.side].y * stub };
  const goal = { x: to.x + OUT[to.side].x * stub, y: to.y + OUT[to.side].y * stub };
  const inflated = boxes.map((b) => ({ x: b.x - margin, y: b.y - margin, width: b.width + 2 * margin, height: b.height + 2 * margin }));
  const near = {
    x: Math.min(start.x, goal.x) - reach,
    y: Math.min(start.y, goal.y) - reach,
    width: Math.abs(start.x - goal.x) + 2 * reach,
    height: Math.abs(start.y - goal.y) + 2 * reach,
  };
  const local = inflated.filter((b) => overlaps(b, near));
  const attempts = local.length < inflated.length ? [local, inflated] : [inflated];
  for (const obstacles of attempts) {
    if (obstacles.length > MOST_BOXES) break;
    const found = search(start, wayOf(OUT[from.side]), goal, wayOf({ x: -OUT[to.side].x, y: -OUT[to.side].y }), obstacles, bend, options.taken);
    if (found) return simplify([{ x: from.x, y: from.y }, ...found, { x: to.x, y: to.y }]);
  }
  return plainRoute(from, to, start, goal);
}

/** Three segments through the middle (or around the back), crossing whatever is there. */
function plainRoute(from: Port, to: Port, start: Point, goal: Point): Point[] {
  const horizontal = from.side === "left" || from.side === "right";
  const middle = horizontal
    ? [
        { x: (start.x + goal.x) / 2, y: start.y },
        { x: (start.x + goal.x) / 2, y: goal.y },
      ]
    : [
        { x: start.x, y: (start.y + goal.y) / 2 },
        { x: goal.x, y: (start.y + goal.y) / 2 },
      ];
  return simplify([{ x: from.x, y: from.y }, start, ...middle, goal, { x: to.x, y: to.y }]);
}

/** A* over the visibility grid of `obstacles`, from `start` heading `startWay` to
 * `goal` arriving heading `goalWay`: the grid points of the cheapest route, or null. */
function search(start: Point, startWay: number, goal: Point, goalWay: number, obstacles: Box[], bend: number, taken?: Taken): Point[] | null {
  const xs = lines([start.x, goal.x], (start.x + goal.x) / 2, obstacles.flatMap((b) => [b.x, b.x + b.width]));
  const ys = lines([start.y, goal.y], (start.y + goal.y) / 2, obstacles.flatMap((b) => [b.y, b.y + b.height]));
  const nx = xs.length;
  const ny = ys.length;
  const xIndex = (x: number) => closest(xs, x);
  const yIndex = (y: number) => closest(ys, y);
  // Blocked grid points, and blocked steps to the next point along x (h) and y (v).
  const point = new Uint8Array(nx * ny);
  const h = new Uint8Array(nx * ny);
  const v = new Uint8Array(nx * ny);
  for (const b of obstacles) {
    const il = xIndex(b.x);
    const ir = xIndex(b.x + b.width);
    const jl = yIndex(b.y);
    const jr = yIndex(b.y + b.height);
    for (let j = jl + 1; j < jr; j++) for (let i = il; i < ir; i++) h[j * nx + i] = 1;
    for (let i = il + 1; i < ir; i++) for (let j = jl; j < jr; j++) v[j * nx + i] = 1;
    for (let j = jl + 1; j < jr; j++) for (let i = il + 1; i < ir; i++) point[j * nx + i] = 1;
  }
  const si = xIndex(start.x);
  const sj = yIndex(start.y);
  const gi = xIndex(goal.x);
  const gj = yIndex(goal.y);
  // The two ends are where the arrow must go, even when a neighbour's margin covers them.
  point[sj * nx + si] = 0;
  point[gj * nx + gi] = 0;

  const states = nx * ny * 4;
  const cost = new Float64Array(states).fill(Number.POSITIVE_INFINITY);
  const came = new Int32Array(states).fill(-1);
  const heap = new MinHeap();
  const guess = (i: number, j: number) => Math.abs(xs[i] - goal.x) + Math.abs(ys[j] - goal.y);
  const first = (sj * nx + si) * 4 + startWay;
  cost[first] = 0;
  heap.push(first, guess(si, sj));
  let best = Number.POSITIVE_INFINITY;
  let bestState = -1;
  while (heap.size > 0) {
    const [state, f] = heap.pop();
    if (f >= best) break;
    const way = state & 3;
    const cell = state >> 2;
    const i = cell % nx;
    const j = (cell - i) / nx;
    const g = cost[state];
    if (f > g + guess(i, j) + 1e-6) continue; // a stale entry
    if (i === gi && j === gj) {
      const total = g + (way === goalWay ? 0 : way === reverse(goalWay) ? 2 * bend : bend);
      if (total < best) {
        best = total;
        bestState = state;
      }
      continue;
    }
    for (let next = 0; next < 4; next++) {
      if (next === reverse(way)) continue;
      const step = WAYS[next];
      const ni = i + step.x;
      const nj = j + step.y;
      if (ni < 0 || nj < 0 || ni >= nx || nj >= ny) continue;
      if (point[nj * nx + ni]) continue;
      if (step.y === 0 && h[j * nx + Math.min(i, ni)]) continue;
      if (step.x === 0 && v[Math.min(j, nj) * nx + i]) continue;
      const length = Math.abs(xs[ni] - xs[i]) + Math.abs(ys[nj] - ys[j]);
      const shared = taken ? along(taken, { x: xs[i], y: ys[j] }, { x: xs[ni], y: ys[nj] }) : 0;
      const ng = g + length + shared + (next === way ? 0 : bend);
      const target = (nj * nx + ni) * 4 + next;
      if (ng < cost[target]) {
        cost[target] = ng;
        came[target] = state;
        heap.push(target, ng + guess(ni, nj));
      }
    }
  }
  if (bestState < 0) return null;
  const path: Point[] = [];
  for (let state = bestState; state >= 0; state = came[state]) {
    const cell = state >> 2;
    const i = cell % nx;
    path.push({ x: xs[i], y: ys[(cell - i) / nx] });
  }
  return path.reverse();
}

/** The grid lines along one axis, sorted: the ends' lines, the line halfway between
 * them unless another is near it, and the boxes' sides — a side within `merge` px
 * of a line already there joins it (a box's margin may shrink by that much), so no
 * route takes a step of a few pixels. One more line on each side leaves room to go
 * around everything. */
function lines(ends: number[], middle: number, sides: number[], merge = 8): number[] {
  const kept = [...ends];
  const near = (v: number) => kept.some((k) => Math.abs(k - v) < merge);
  for (const side of [...sides].sort((a, b) => a - b)) if (!near(side)) kept.push(side);
  if (!near(middle)) kept.push(middle);
  kept.sort((a, b) => a - b);
  return [kept[0] - 40, ...kept, kept[kept.length - 1] + 40];
}

/** The index of the value of sorted `values` closest to `v`. */
function closest(values: number[], v: number): number {
  let low = 0;
  let high = values.length - 1;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (values[mid] <= v) low = mid;
    else high = mid;
  }
  return Math.abs(values[high] - v) < Math.abs(values[low] - v) ? high : low;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The route without repeated points and without points in the middle of a straight run. */
export function simplify(points: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of points) {
    const last = out[out.length - 1];
    if (last && Math.abs(last.x - p.x) < 0.5 && Math.abs(last.y - p.y) < 0.5) continue;
    const before = out[out.length - 2];
    if (before && last && ((before.x === last.x && last.x === p.x) || (before.y === last.y && last.y === p.y))) out.pop();
    out.push(p);
  }
  return out;
}

/** True when the segment a–b passes through the inside of `box` (touching its
 * border is not passing through). Segments are horizontal or vertical; any other
 * is checked at points along it. */
export function segmentCrosses(a: Point, b: Point, box: Box): boolean {
  const left = box.x;
  const right = box.x + box.width;
  const top = box.y;
  const bottom = box.y + box.height;
  if (Math.abs(a.y - b.y) < 0.5) {
    return a.y > top && a.y < bottom && Math.max(a.x, b.x) > left && Math.min(a.x, b.x) < right;
  }
  if (Math.abs(a.x - b.x) < 0.5) {
    return a.x > left && a.x < right && Math.max(a.y, b.y) > top && Math.min(a.y, b.y) < bottom;
  }
  const steps = Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 8);
  for (let k = 1; k < steps; k++) {
    const x = a.x + ((b.x - a.x) * k) / steps;
    const y = a.y + ((b.y - a.y) * k) / steps;
    if (x > left && x < right && y > top && y < bottom) return true;
  }
  return false;
}

/** True when the polyline passes through the inside of any of `boxes`. */
export function pathCrosses(points: readonly Point[], boxes: readonly Box[]): boolean {
  for (let k = 1; k < points.length; k++) {
    for (const box of boxes) if (segmentCrosses(points[k - 1], points[k], box)) return true;
  }
  return false;
}

/** A binary heap of (state, priority), smallest priority first. */
class MinHeap {
  private items: number[] = [];
  private priorities: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: number, priority: number) {
    this.items.push(item);
    this.priorities.push(priority);
    let k = this.items.length - 1;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (this.priorities[parent] <= this.priorities[k]) break;
      this.swap(k, parent);
      k = parent;
    }
  }

  pop(): [number, number] {
    const top: [number, number] = [this.items[0], this.priorities[0]];
    const lastItem = this.items.pop() as number;
    const lastPriority = this.priorities.pop() as number;
    if (this.items.length > 0) {
      this.items[0] = lastItem;
      this.priorities[0] = lastPriority;
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < this.items.length && this.priorities[l] < this.priorities[m]) m = l;
        if (r < this.items.length && this.priorities[r] < this.priorities[m]) m = r;
        if (m === k) break;
        this.swap(k, m);
        k = m;
      }
    }
    return top;
  }

  private swap(a: number, b: number) {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
    [this.priorities[a], this.priorities[b]] = [this.priorities[b], this.priorities[a]];
  }
}
