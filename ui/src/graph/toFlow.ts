// The types of the crew graph as React Flow draws it, and its edges: the engine's
// view of an edge plus its problem badge, colour, dash and pill label. Pure.
import { type Edge, MarkerType, type Node } from "@xyflow/react";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";
import type { Direction, Route } from "./layout";
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

/** One edge of the view as React Flow draws it (following `route` when given). */
export function toFlowEdge(edge: ViewEdge, badges: Map<string, Badge>, route?: Route): CrewEdge {
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
    data: { view: edge, badge, route, color, dashed: edgeDashed(edge), label: edgeLabel(edge) },
  };
}
