// The crew being edited, as React Flow nodes and edges: the engine's graph view
// placed where the person put each node (`positions`). Agents sit at absolute
// positions; a group frame is drawn around wherever its members are, so moving a
// member moves the frame, and dropping an agent inside or outside a frame is how
// membership changes (`groupDrop`). Pure, so it is unit-tested.
import type { GraphView } from "../bindings/GraphView";
import type { ViewNode } from "../bindings/ViewNode";
import type { Positions } from "../editor/history";
import { type Box, type Direction, groupHeader, groupPadding, type Layout, type Point, type Route, absoluteBox, nodeSize } from "./layout";
import type { Badge } from "./problems";
import { arrowOf, graphRefs, nodeRef } from "./refs";
import { pathCrosses } from "./route";
import { arrowWords, type CardInfo, type CrewEdge, type CrewNode, nodeWords, toFlowEdge, toFlowNodeData } from "./toFlow";

export { groupPadding };

/** A group without members still gets a frame this big. */
const emptyGroup = { width: 260, height: 120 };

/** What the canvas draws besides the graph and its places. */
export type FlowOptions = {
  /** Which way the work flows: where handles sit. */
  direction?: Direction;
  /** Each arrow's route and pill place (arrows.ts), by edge id. */
  arrows?: Map<string, Route>;
  /** Each arrow's pill words, by edge id (default: `edgeLabel`). */
  labels?: Map<string, string>;
  /** What an agent's card says besides the graph's node, by node id. */
  cards?: Map<string, CardInfo>;
};

export function toEditorFlow(
  view: GraphView,
  positions: Positions,
  badges: Map<string, Badge>,
  { direction = "RIGHT", arrows = new Map(), labels, cards }: FlowOptions = {},
): { nodes: CrewNode[]; edges: CrewEdge[] } {
  const frames = groupFrames(view, positions);
  const refs = graphRefs(view);
  const nodes: CrewNode[] = [];
  for (const node of view.nodes) {
    const box = node.kind === "group" ? frames.get(node.id) : nodeBox(node, positions);
    if (!box) continue;
    nodes.push({
      id: node.id,
      type: node.kind,
      position: { x: box.x, y: box.y },
      width: box.width,
      height: box.height,
      data: toFlowNodeData(nodeRef(node), node, direction, badges.get(node.id), cards?.get(node.id)),
      className: `crew-node crew-node-${node.kind}`,
      ariaLabel: nodeWords(node, cards?.get(node.id)),
      ...(node.kind === "group" ? { zIndex: -1, draggable: false } : {}),
    });
  }
  // Frames first: React Flow draws in order, and frames belong underneath.
  nodes.sort((a, b) => Number(b.type === "group") - Number(a.type === "group"));
  // An edge follows its drawn route while its two ends are where the route starts
  // and ends (the edge component checks: not while a card is dragged), a curve otherwise.
  const names = new Map(view.nodes.map((n) => [n.id, n.label]));
  const edges = view.edges.map((edge) => {
    const label = labels?.get(edge.id);
    const flow = toFlowEdge(arrowOf(edge, refs), badges, arrows.get(edge.id), label);
    return { ...flow, ariaLabel: arrowWords(edge, names, label) };
  });
  return { nodes, edges };
}

/** A node's box on the canvas (not for groups: see `groupFrames`). */
export function nodeBox(node: Pick<ViewNode, "id" | "kind">, positions: Positions): Box {
  const size = node.kind === "group" ? emptyGroup : nodeSize[node.kind];
  const at = positions[node.id] ?? { x: 0, y: 0 };
  return { x: at.x, y: at.y, width: size.width, height: size.height };
}

/** Each group's frame: around its members, or where the group was put when it has none. */
export function groupFrames(view: GraphView, positions: Positions, leaveOut?: string): Map<string, Box> {
  const frames = new Map<string, Box>();
  for (const group of view.nodes.filter((n) => n.kind === "group")) {
    const members = view.nodes.filter((n) => n.parent === group.id && n.id !== leaveOut);
    if (members.length === 0) {
      frames.set(group.id, nodeBox(group, positions));
      continue;
    }
    const boxes = members.map((m) => nodeBox(m, positions));
    const left = Math.min(...boxes.map((b) => b.x)) - groupPadding;
    const top = Math.min(...boxes.map((b) => b.y)) - groupPadding - groupHeader;
    const right = Math.max(...boxes.map((b) => b.x + b.width)) + groupPadding;
    const bottom = Math.max(...boxes.map((b) => b.y + b.height)) + groupPadding;
    frames.set(group.id, { x: left, y: top, width: right - left, height: bottom - top });
  }
  return frames;
}

/** What dropping agent node `id` at `at` means for groups: the agent's id, the groups
 * it joins (its centre is inside their frame) and the groups it leaves (its centre is
 * outside the frame of the group's other members), by the groups' ids. */
export function groupDrop(view: GraphView, positions: Positions, id: string): { agent: string | null; join: string[]; leave: string[] } {
  const node = view.nodes.find((n) => n.id === id);
  const agent = node ? nodeRef(node).agent : null;
  if (!node || agent === null) return { agent: null, join: [], leave: [] };
  const box = nodeBox(node, positions);
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const inside = (frame: Box) =>
    centre.x >= frame.x && centre.x <= frame.x + frame.width && centre.y >= frame.y && centre.y <= frame.y + frame.height;
  const join: string[] = [];
  const leave: string[] = [];
  // The agent's own groups are measured without it, or they would always contain it.
  const without = groupFrames(view, positions, id);
  for (const group of view.nodes.filter((n) => n.kind === "group")) {
    const member = node.parent === group.id;
    const others = view.nodes.some((n) => n.parent === group.id && n.id !== id);
    const frame = without.get(group.id);
    const groupId = nodeRef(group).group;
    if (!frame || groupId === null) continue;
    if (member && others && !inside(frame)) leave.push(groupId);
    if (!member && inside(frame)) join.push(groupId);
  }
  return { agent, join, leave };
}

/** A place for node `id`, which has none yet (an agent added while the app runs,
 * one pasted from elsewhere), in free space: after the placed node it comes from
 * (in the way work flows), else before the one it leads to, else to the right of
 * everything — clear of the cards and of the arrows (`arrows`: the drawn routes). */
export function placeNew(view: GraphView, positions: Positions, id: string, direction: Direction, arrows: readonly Point[][] = []): Point {
  const placed = (nodeId: string) => {
    const node = view.nodes.find((n) => n.id === nodeId);
    return node && node.kind !== "group" && positions[nodeId] ? nodeBox(node, positions) : null;
  };
  const size = nodeBox(view.nodes.find((n) => n.id === id) ?? { id, kind: "agent" }, {});
  const gap = 80;
  let want: Point | null = null;
  for (const edge of view.edges) {
    const from = edge.target === id && edge.source !== id ? placed(edge.source) : null;
    if (from) {
      want = direction === "DOWN" ? { x: from.x, y: from.y + from.height + gap } : { x: from.x + from.width + gap, y: from.y };
      break;
    }
  }
  if (!want) {
    for (const edge of view.edges) {
      const to = edge.source === id && edge.target !== id ? placed(edge.target) : null;
      if (to) {
        want = direction === "DOWN" ? { x: to.x, y: to.y - size.height - gap } : { x: to.x - size.width - gap, y: to.y };
        break;
      }
    }
  }
  if (!want) {
    const boxes = view.nodes.flatMap((n) => (n.id !== id ? (placed(n.id) ?? []) : []));
    want = boxes.length ? { x: Math.max(...boxes.map((b) => b.x + b.width)) + gap, y: Math.min(...boxes.map((b) => b.y)) } : { x: 0, y: 0 };
  }
  return freeSpot(view, positions, id, want, arrows);
}

/** Which way the work flows in a crew placed by hand (a crew reopened): down when
 * most arrows between placed agents go more down than across, else right. */
export function inferDirection(view: GraphView, positions: Positions): Direction {
  let down = 0;
  let across = 0;
  for (const edge of view.edges) {
    const a = positions[edge.source];
    const b = positions[edge.target];
    if (!a || !b || edge.source === edge.target) continue;
    if (Math.abs(b.y - a.y) > Math.abs(b.x - a.x)) down += 1;
    else across += 1;
  }
  return down > across ? "DOWN" : "RIGHT";
}

/** Positions for the nodes that have none, from an automatic layout. */
export function fillPositions(view: GraphView, positions: Positions, layout: Layout): Positions {
  const filled: Positions = { ...positions };
  for (const node of view.nodes) {
    if (node.kind === "group" && view.nodes.some((n) => n.parent === node.id)) continue;
    if (filled[node.id]) continue;
    const box = absoluteBox(view, layout, node.id);
    if (box) filled[node.id] = { x: box.x, y: box.y };
  }
  return filled;
}

/** Every node where an automatic layout puts it (the "Tidy up" button). */
export function layoutPositions(view: GraphView, layout: Layout): Positions {
  return fillPositions(view, {}, layout);
}

/** Above this many nodes the automatic layout is a grid in crew order: ELK's
 * layered layout of thousands of nodes takes seconds the person would wait. */
export const gridAbove = 300;

/** Every node on a grid, `columns` wide, in the order the engine lists them. */
export function gridPositions(view: GraphView, columns = 12): Positions {
  const placed: Positions = {};
  const nodes = view.nodes.filter((n) => n.kind !== "group");
  nodes.forEach((node, index) => {
    placed[node.id] = { x: (index % columns) * 300, y: Math.floor(index / columns) * 150 };
  });
  return placed;
}

/** The view with the End and Wait nodes added when the crew has no edge into them
 * yet: in the editor they are always there, to drop a finishing or a waiting edge on. */
export function withDropTargets(view: GraphView): GraphView {
  const extra: ViewNode[] = [];
  for (const [id, label] of [["end", "End"], ["wait", "Wait"]] as const) {
    if (view.nodes.some((n) => n.id === id)) continue;
    extra.push({ id, kind: id, label, agent: null, role: null, model: null, description: null, tags: [], parent: null, entry: false, terminal: false, waits: false, group: null });
  }
  return extra.length ? { ...view, nodes: [...view.nodes, ...extra] } : view;
}

/** Places End and Wait when they have no place yet, or when they are `floating`
 * (no edge leads there yet, so they follow the crew): End to the right of
 * everything, Wait beside it — each moved along until it overlaps nothing. */
export function placeDropTargets(view: GraphView, positions: Positions, floating: string[] = []): Positions {
  const needs = (id: string) => !positions[id] || floating.includes(id);
  if (!needs("end") && !needs("wait")) return positions;
  const next: Positions = { ...positions };
  for (const id of ["end", "wait"]) if (needs(id)) delete next[id];
  const placed = view.nodes.filter((n) => n.kind !== "group" && next[n.id]).map((n) => nodeBox(n, next));
  const right = placed.length ? Math.max(...placed.map((b) => b.x + b.width)) + 120 : 600;
  const top = placed.length ? Math.min(...placed.map((b) => b.y)) : 0;
  if (!next.end) next.end = freeSpot(view, next, "end", { x: right, y: top });
  if (!next.wait) next.wait = freeSpot(view, next, "wait", { x: next.end.x + nodeSize.end.width + 40, y: next.end.y });
  return next;
}

/** The first place at or below `want` where node `id` overlaps no other node and
 * no arrow (`arrows`: the drawn routes) runs through it. */
export function freeSpot(
  view: GraphView,
  positions: Positions,
  id: string,
  want: { x: number; y: number },
  arrows: readonly Point[][] = [],
): { x: number; y: number } {
  const node = view.nodes.find((n) => n.id === id) ?? { id, kind: "agent" as const };
  const size = nodeBox(node, {});
  const others = view.nodes.filter((n) => n.id !== id && n.kind !== "group" && positions[n.id]).map((n) => nodeBox(n, positions));
  // (Nodes without a place yet do not block.)
  const overlaps = (x: number, y: number) =>
    others.some((b) => x < b.x + b.width + 16 && x + size.width + 16 > b.x && y < b.y + b.height + 16 && y + size.height + 16 > b.y) ||
    arrows.some((points) => pathCrosses(points, [{ x: x - 24, y: y - 24, width: size.width + 48, height: size.height + 48 }]));
  // Along the row to the right (the way work flows), then the next row down: near
  // where it was wanted, with room between cards for arrows and a group's title.
  for (let row = 0; row < 40; row++) {
    const y = want.y + row * (size.height + 72);
    for (let column = 0; column < 4; column++) {
      const x = want.x + column * (size.width + 80);
      if (!overlaps(x, y)) return { x, y };
    }
  }
  return want;
}
