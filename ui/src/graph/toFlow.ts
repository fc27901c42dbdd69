// The types of the crew graph as React Flow draws it, and its edges: the engine's
// view of a node plus the agent or group it is (refs.ts), of an edge plus what its
// two ends are, its problem badge, colour, dash and pill label. Pure.
import { type Edge, MarkerType, type Node } from "@xyflow/react";
import type { ViewNode } from "../bindings/ViewNode";
import type { Direction, Route } from "./layout";
import type { Badge } from "./problems";
import type { Arrow, NodeRef } from "./refs";
import { edgeColor, edgeDashed, edgeLabel } from "./style";

export type CrewNodeData = {
  view: ViewNode;
  /** The agent's id, on an agent's card. */
  agent: string | null;
  /** The group's id, on a group's frame. */
  group: string | null;
  badge?: Badge;
  /** Where the handles go: left/right when the work flows right, top/bottom when down. */
  direction: Direction;
};

/** `source` and `target`: what the edge's two ends are (their agent or group ids). */
export type CrewEdgeData = Arrow & {
  badge?: Badge;
  /** ELK's route, used while the two ends are where the layout put them. */
  route?: Route;
  color: string;
  dashed: boolean;
  label: string;
};

export type CrewNode = Node<CrewNodeData>;
export type CrewEdge = Edge<CrewEdgeData>;

/** The data of a node of the view as React Flow draws it. */
export function toFlowNodeData(ref: NodeRef, view: ViewNode, direction: Direction, badge?: Badge): CrewNodeData {
  return { view, agent: ref.agent, group: ref.group, badge, direction };
}

/** What a node React Flow draws is, from its data. */
export function refOfNode(data: CrewNodeData): NodeRef {
  return { kind: data.view.kind, agent: data.agent, group: data.group };
}

/** One edge of the view as React Flow draws it (following `route` when given). */
export function toFlowEdge({ view: edge, source, target }: Arrow, badges: Map<string, Badge>, route?: Route): CrewEdge {
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
    data: { view: edge, source, target, badge, route, color, dashed: edgeDashed(edge), label: edgeLabel(edge) },
  };
}
