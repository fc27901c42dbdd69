// Every arrow of the crew as the canvas draws it: an orthogonal route that passes
// through no card, and its pill's place, clear of cards and of the other pills.
// The automatic layout's own route (ELK's sections: bend points and label
// position) is kept while it still fits — both ends where the layout put them and
// no card moved into its way; any other arrow is routed around the cards here
// (route.ts). Group frames are in the way of the arrows that have nothing to do
// with their group. Above `gridAbove` nodes nothing is routed (the canvas draws
// plain curves; a crew that big is laid out on a grid). Pure.
import type { GraphView } from "../bindings/GraphView";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { Positions } from "../editor/history";
import { gridAbove, groupFrames, nodeBox } from "./editorFlow";
import { type Box, type Direction, groupHeader, labelWidth, type Point, type Route } from "./layout";
import { placePills } from "./pills";
import { noneTaken, pathCrosses, type Port, routeAround, take } from "./route";

/** Height of a pill (styles: 11.5 px text, 2 px padding, a border). */
export const pillHeight = 22;

export type ArrowInput = {
  view: GraphView;
  positions: Positions;
  direction: Direction;
  /** The last automatic layout's routes (empty: none). */
  layout: Map<string, Route>;
  /** The words on each arrow's pill, by edge id. */
  labels: Map<string, string>;
};

/** Each arrow's route and the centre of its pill, by edge id (empty above `gridAbove` nodes). */
export function drawArrows({ view, positions, direction, layout, labels }: ArrowInput): Map<string, Route> {
  const drawn = new Map<string, Route>();
  if (view.nodes.length > gridAbove) return drawn;
  const frames = groupFrames(view, positions);
  const boxes = new Map<string, Box>();
  for (const node of view.nodes) {
    if (node.kind === "group") {
      const frame = frames.get(node.id);
      if (frame) boxes.set(node.id, frame);
    } else if (positions[node.id]) {
      boxes.set(node.id, nodeBox(node, positions));
    }
  }
  const parent = new Map(view.nodes.map((n) => [n.id, n.parent]));
  const leaves = view.nodes.filter((n) => n.kind !== "group" && boxes.has(n.id)).map((n) => ({ id: n.id, box: boxes.get(n.id) as Box }));
  const groups = view.nodes.filter((n) => n.kind === "group" && boxes.has(n.id)).map((n) => ({ id: n.id, box: boxes.get(n.id) as Box }));

  const pills: { id: string; points: Point[]; preferred?: Point }[] = [];
  const taken = noneTaken();
  const ends = new Map<string, { from: Port; to: Port; obstacles: Box[] }>();
  for (const edge of view.edges) {
    const source = boxes.get(edge.source);
    const target = boxes.get(edge.target);
    if (!source || !target) continue;
    // The frames an arrow may cross: the groups around its two ends (into a member,
    // out of one). An arrow into or out of a frame itself goes around it.
    const inside = new Set([parent.get(edge.source), parent.get(edge.target)]);
    const obstacles = [...leaves.map((l) => l.box), ...groups.filter((g) => !inside.has(g.id)).map((g) => g.box)];
    ends.set(edge.id, { from: port(source, direction, "out"), to: port(target, direction, "in"), obstacles });
  }
  // The layout's routes that still fit first, then the others around them (and off them).
  const rest: string[] = [];
  for (const [id, { from, to, obstacles }] of ends) {
    const laid = layout.get(id);
    if (laid && fits(laid.points, from, to, obstacles)) {
      drawn.set(id, { points: laid.points });
      pills.push({ id, points: laid.points, preferred: laid.label });
      take(taken, laid.points);
    } else {
      rest.push(id);
    }
  }
  for (const id of rest) {
    const { from, to, obstacles } = ends.get(id) as { from: Port; to: Port; obstacles: Box[] };
    const points = routeAround(from, to, obstacles, { taken });
    take(taken, points);
    drawn.set(id, { points });
    pills.push({ id, points });
  }

  // Pills keep clear of the cards and of each group's title.
  const pillObstacles = [...leaves.map((l) => l.box), ...groups.map((g) => ({ ...g.box, height: groupHeader }))];
  const requests = [...pills.filter((p) => p.preferred), ...pills.filter((p) => !p.preferred)].map((p) => ({
    ...p,
    width: labelWidth(labels.get(p.id) ?? ""),
    height: pillHeight,
  }));
  const centres = placePills(requests, pillObstacles);
  for (const [id, route] of drawn) route.label = centres.get(id);
  return drawn;
}

/** Where an arrow leaves (`out`) or enters (`in`) a node: the middle of the side its
 * handle is on (React Flow draws the handles there). */
export function port(box: Box, direction: Direction, end: "in" | "out"): Port {
  if (direction === "DOWN") {
    return end === "out" ? { x: box.x + box.width / 2, y: box.y + box.height, side: "bottom" } : { x: box.x + box.width / 2, y: box.y, side: "top" };
  }
  return end === "out" ? { x: box.x + box.width, y: box.y + box.height / 2, side: "right" } : { x: box.x, y: box.y + box.height / 2, side: "left" };
}

/** A laid-out route still fits: its ends are at the two ports and no box it passes
 * through (a card moved into its way). */
function fits(points: Point[], from: Point, to: Point, obstacles: Box[]): boolean {
  if (points.length < 2 || !near(points[0], from) || !near(points[points.length - 1], to)) return false;
  // (A route along a box's border, as ELK draws them around a frame, does not cross it.)
  const inner = obstacles.map((b) => ({ x: b.x + 1, y: b.y + 1, width: b.width - 2, height: b.height - 2 }));
  return !pathCrosses(points, inner);
}

function near(a: Point, b: Point, tolerance = 10): boolean {
  return Math.abs(a.x - b.x) <= tolerance && Math.abs(a.y - b.y) <= tolerance;
}

/** The pill words of every edge (edgeLabel with the crew's written line signals). */
export function labelsOf(edges: readonly ViewEdge[], label: (edge: ViewEdge) => string): Map<string, string> {
  return new Map(edges.map((e) => [e.id, label(e)]));
}
