// The crew being edited, as React Flow nodes and edges: the engine's graph view
// placed where the person put each node (`positions`). Agents sit at absolute
// positions; a group frame is drawn around wherever its members are, so moving a
// member moves the frame, and dropping an agent inside or outside a frame is how
// membership changes (`groupDrop`). Pure, so it is unit-tested.
import type { GraphView } from "../bindings/GraphView";
import type { ViewNode } from "../bindings/ViewNode";
import type { Positions } from "../editor/history";
import { type Box, type Direction, groupHeader, type Layout, type Route, absoluteBox, nodeSize } from "./layout";
import type { Badge } from "./problems";
import { arrowOf, graphRefs, nodeRef } from "./refs";
import { type CrewEdge, type CrewNode, toFlowEdge, toFlowNodeData } from "./toFlow";

/** Space between a group's frame and its members. */
export const groupPadding = 24;
/** A group without members still gets a frame this big. */
const emptyGroup = { width: 260, height: 120 };

export function toEditorFlow(
  view: GraphView,
  positions: Positions,
  badges: Map<string, Badge>,
  direction: Direction = "RIGHT",
  routes: Map<string, Route> = new Map(),
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
      data: toFlowNodeData(nodeRef(node), node, direction, badges.get(node.id)),
      className: `crew-node crew-node-${node.kind}`,
      ...(node.kind === "group" ? { zIndex: -1, draggable: false } : {}),
    });
  }
  // Frames first: React Flow draws in order, and frames belong underneath.
  nodes.sort((a, b) => Number(b.type === "group") - Number(a.type === "group"));
  // An edge follows the automatic layout's route while its two ends are where the
  // layout put them (the edge component checks), a curve otherwise.
  return { nodes, edges: view.edges.map((edge) => toFlowEdge(arrowOf(edge, refs), badges, routes.get(edge.id))) };
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

/** The first place at or below `want` where node `id` overlaps no other node. */
export function freeSpot(view: GraphView, positions: Positions, id: string, want: { x: number; y: number }): { x: number; y: number } {
  const node = view.nodes.find((n) => n.id === id) ?? { id, kind: "agent" as const };
  const size = nodeBox(node, {});
  const others = view.nodes.filter((n) => n.id !== id && n.kind !== "group" && positions[n.id]).map((n) => nodeBox(n, positions));
  // (Nodes without a place yet do not block.)
  const overlaps = (x: number, y: number) =>
    others.some((b) => x < b.x + b.width + 16 && x + size.width + 16 > b.x && y < b.y + b.height + 16 && y + size.height + 16 > b.y);
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
