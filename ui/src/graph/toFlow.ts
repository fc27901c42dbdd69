// The crew's view model (from the engine) plus its layout and problems, turned
// into React Flow nodes and edges. Pure: no React, no I/O, so it is unit-tested.
import { type Edge, MarkerType, type Node } from "@xyflow/react";
import type { GraphView } from "../bindings/GraphView";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";
import type { Direction, Layout, Route } from "./layout";
import type { Badge } from "./problems";
import { edgeColor, edgeDashed, edgeLabel } from "./style";

export type CrewNodeData = {
  view: ViewNode;
  badge?: Badge;
  /** Where the handles go: left/right when the work flows right, top/bottom when down. */
  direction: Direction;
};

export type CrewEdgeData = {
  view: ViewEdge;
  badge?: Badge;
  /** ELK's route, used while the two ends are where the layout put them. */
  route?: Route;
  color: string;
  dashed: boolean;
  label: string;
};

export type CrewNode = Node<CrewNodeData>;
export type CrewEdge = Edge<CrewEdgeData>;

export function toFlow(
  view: GraphView,
  layout: Layout,
  badges: Map<string, Badge>,
): { nodes: CrewNode[]; edges: CrewEdge[] } {
  const ids = new Set(view.nodes.map((n) => n.id));
  // React Flow needs a frame before the nodes inside it.
  const ordered = [...view.nodes.filter((n) => n.kind === "group"), ...view.nodes.filter((n) => n.kind !== "group")];
  const nodes: CrewNode[] = ordered.map((node) => {
    const box = layout.nodes.get(node.id) ?? { x: 0, y: 0, width: 0, height: 0 };
    const parentId = node.parent && ids.has(node.parent) ? node.parent : undefined;
    return {
      id: node.id,
      type: node.kind,
      position: { x: box.x, y: box.y },
      width: box.width,
      height: box.height,
      ...(parentId ? { parentId, extent: "parent" as const } : {}),
      data: { view: node, badge: badges.get(node.id), direction: layout.direction },
      className: `crew-node crew-node-${node.kind}`,
      ...(node.kind === "group" ? { zIndex: -1 } : {}),
    };
  });
  const edges: CrewEdge[] = view.edges.map((edge) => {
    const color = edgeColor(edge);
    const badge = badges.get(edge.id);
    return {
      id: edge.id,
      type: "crew",
      source: edge.source,
      target: edge.target,
      sourceHandle: "out",
      targetHandle: "in",
      markerEnd: { type: MarkerType.ArrowClosed, color, width: 18, height: 18 },
      className: `crew-edge crew-edge-${edge.kind}${edge.behavior ? ` crew-edge-${edge.behavior}` : ""}${badge ? ` has-${badge.severity}` : ""}`,
      data: { view: edge, badge, route: layout.edges.get(edge.id), color, dashed: edgeDashed(edge), label: edgeLabel(edge) },
    };
  });
  return { nodes, edges };
}
