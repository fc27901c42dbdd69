// What a node or an arrow of the crew graph stands for in the crew: an agent or a
// group by its id, or End, Wait, the router. Read once from the engine's view
// (`ViewNode.agent`, `ViewNode.group.id`) where the React Flow
// nodes and edges are made, and carried in their data — never parsed back out of a
// node's id, whose form (`agent:teacher`) is the engine's business. Selected ids are
// matched against the crew itself instead (`inSelection`), since the engine's
// verdict may be behind the latest edit. Pure.
//
//   const refs = graphRefs(view);          // node id → { kind, agent, group }
//   runName(refs.get("agent:teacher")!);   // → "teacher", as a run's events name it
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GraphView } from "../bindings/GraphView";
import type { NodeKind } from "../bindings/NodeKind";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";

/** What a node is: an agent (`agent` its id), a group (`group` its id), End, Wait or the router. */
export type NodeRef = { kind: NodeKind; agent: string | null; group: string | null };

/** An edge with what its two ends are. */
export type Arrow = { view: ViewEdge; source: NodeRef; target: NodeRef };

export function nodeRef(node: ViewNode): NodeRef {
  return { kind: node.kind, agent: node.kind === "agent" ? node.agent : null, group: node.kind === "group" ? (node.group?.id ?? null) : null };
}

/** Every node of the view by its id. */
export function graphRefs(view: GraphView): Map<string, NodeRef> {
  return new Map(view.nodes.map((node) => [node.id, nodeRef(node)]));
}

/** A node the view does not hold (it always does): nothing to edit or light up. */
export const unknownNode: NodeRef = { kind: "router", agent: null, group: null };

/** The edge with its ends (`refs`: the view's, from `graphRefs`). */
export function arrowOf(edge: ViewEdge, refs: Map<string, NodeRef>): Arrow {
  return { view: edge, source: refs.get(edge.source) ?? unknownNode, target: refs.get(edge.target) ?? unknownNode };
}

/** Every edge of the view with its ends. */
export function arrowsOf(view: GraphView): Arrow[] {
  const refs = graphRefs(view);
  return view.edges.map((edge) => arrowOf(edge, refs));
}

/** The name a run's events give a node: its agent's or group's id; `end`, `wait`, `router`. */
export function runName(ref: NodeRef): string {
  return ref.agent ?? ref.group ?? ref.kind;
}

/** The node id of an agent's card and of a group's frame, as the engine makes them
 * (src-tauri/crates/engine/src/graph/view.rs): to select or place a node by its id. */
export const agentNodeId = (agent: string) => `agent:${agent}`;
export const groupNodeId = (group: string) => `group:${group}`;

/** The crew's agents and groups among the selected node ids, in the selection's
 * order (ids of nodes that are neither, or are gone from the crew, are left out). */
export function inSelection(spec: CrewSpec, ids: readonly string[]): { agents: string[]; groups: string[] } {
  const agents = new Map(spec.agents.flatMap(({ id }) => (id === undefined ? [] : [[agentNodeId(id), id] as const])));
  const groups = new Map(Object.keys(spec.routing?.parallel_groups ?? {}).map((group) => [groupNodeId(group), group]));
  return {
    agents: ids.flatMap((id) => agents.get(id) ?? []),
    groups: ids.flatMap((id) => groups.get(id) ?? []),
  };
}
