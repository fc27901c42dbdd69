// The types of the crew graph as React Flow draws it, and its edges: the engine's
// view of a node plus the agent or group it is (refs.ts), of an edge plus what its
// two ends are, its problem badge, colour, dash and pill label. Pure.
import { type Edge, MarkerType, type Node } from "@xyflow/react";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { GraphView } from "../bindings/GraphView";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";
import type { Direction, Route } from "./layout";
import type { Badge } from "./problems";
import type { Arrow, NodeRef } from "./refs";
import { edgeColor, edgeDashed, edgeLabel, kindWords } from "./style";

/** What an agent's card says besides the engine's node. */
export type CardInfo = {
  /** The agent a reply without a signal goes to, automatically (its name): no arrow
   * says so, so the card does ("No signal → Researcher (automatic)"). */
  fallback: string | null;
  /** Added while the app runs: not in the crew's files. */
  runtime: boolean;
};

/** Each agent card's extras, by node id: its automatic fallback by name — not on a
 * group member that only its group reaches (its replies go back with the group, so
 * the fallback never applies) — and whether it was added while the app runs. */
export function cardInfo(document: Pick<CrewDocument, "agents">, graph: GraphView): Map<string, CardInfo> {
  const agents = new Map(document.agents.map((a) => [a.id, a]));
  const reached = new Set(graph.edges.filter((e) => e.kind !== "membership").map((e) => e.target));
  const cards = new Map<string, CardInfo>();
  for (const node of graph.nodes) {
    const agent = node.kind === "agent" && node.agent ? agents.get(node.agent) : undefined;
    if (!agent) continue;
    const onlyInGroup = node.parent !== null && !node.entry && !reached.has(node.id);
    const to = agent.automatic_fallback && !onlyInGroup ? agents.get(agent.automatic_fallback) : undefined;
    const fallback = agent.automatic_fallback && !onlyInGroup ? to?.name || agent.automatic_fallback : null;
    if (fallback || agent.runtime) cards.set(node.id, { fallback, runtime: agent.runtime });
  }
  return cards;
}

export type CrewNodeData = {
  view: ViewNode;
  /** The agent's id, on an agent's card. */
  agent: string | null;
  /** The group's id, on a group's frame. */
  group: string | null;
  badge?: Badge;
  /** Where the handles go: left/right when the work flows right, top/bottom when down. */
  direction: Direction;
  /** On an agent's card: its automatic fallback and whether it was added while running. */
  card?: CardInfo;
};

/** `source` and `target`: what the edge's two ends are (their agent or group ids). */
export type CrewEdgeData = Arrow & {
  badge?: Badge;
  /** The drawn route (arrows.ts), used while the two ends are where it starts and ends. */
  route?: Route;
  color: string;
  dashed: boolean;
  label: string;
};

export type CrewNode = Node<CrewNodeData>;
export type CrewEdge = Edge<CrewEdgeData>;

/** The data of a node of the view as React Flow draws it. */
export function toFlowNodeData(ref: NodeRef, view: ViewNode, direction: Direction, badge?: Badge, card?: CardInfo): CrewNodeData {
  return { view, agent: ref.agent, group: ref.group, badge, direction, card };
}

/** What a node React Flow draws is, from its data. */
export function refOfNode(data: CrewNodeData): NodeRef {
  return { kind: data.view.kind, agent: data.agent, group: data.group };
}

/** One edge of the view as React Flow draws it (following `route` when given, its
 * pill saying `label`, else `edgeLabel`). */
export function toFlowEdge({ view: edge, source, target }: Arrow, badges: Map<string, Badge>, route?: Route, label = edgeLabel(edge)): CrewEdge {
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
    data: { view: edge, source, target, badge, route, color, dashed: edgeDashed(edge), label },
  };
}

/** A card as a screen reader announces it: "Agent Teacher, asks one question at a
 * time, runs start here". */
export function nodeWords(node: ViewNode, card?: CardInfo): string {
  if (node.kind === "group") return `Group ${node.label}: its members work side by side`;
  if (node.kind === "end") return "End: the run finishes here";
  if (node.kind === "wait") return "Wait: the crew waits for you here";
  if (node.kind === "router") return `${node.label}: decides which agent works next`;
  const parts = [`Agent ${node.label}`, node.role ?? "", node.entry ? "runs start here" : "", node.terminal ? "finishes the run" : ""];
  if (card?.fallback) parts.push(`with no signal the work goes to ${card.fallback} automatically`);
  if (card?.runtime) parts.push("added while running");
  return parts.filter(Boolean).join(", ");
}

/** An arrow as a screen reader announces it, by names and in words: "Teacher to
 * exam round: asks a question, when the reply says [QUESTION]". */
export function arrowWords(edge: ViewEdge, names: Map<string, string>, label?: string): string {
  const from = names.get(edge.source) ?? edge.source;
  const to = names.get(edge.target) ?? edge.target;
  if (edge.kind === "signal") {
    const written = label && edge.description && label.startsWith(`${edge.description.trim()} · `) ? label.slice(edge.description.trim().length + 3) : (label ?? edge.signal ?? "");
    const words = edge.description?.trim();
    return `${from} to ${to}: ${words ? `${words}, ` : ""}when the reply says ${written}`;
  }
  if (edge.kind === "fallback") return `${from} to ${to}: otherwise, when no signal matches`;
  return `${from} to ${to}: ${kindWords[edge.kind]}`;
}
