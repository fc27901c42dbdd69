// Deleting several selected things in one edit (one undo step): arrows first —
// a rule's arrows from the last rule up, so earlier rules keep their places —
// then groups, then agents (whose removal takes their other arrows along).
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ViewEdge } from "../bindings/ViewEdge";
import { removeAgents } from "./agents";
import { removeEdge } from "./edges";
import { removeGroup } from "./groups";
import { type EditResult, ok, refuse } from "./result";

/** What a selection holds, by kind (End and Wait cannot be deleted). */
export function sortSelection(ids: string[], edges: ViewEdge[]) {
  const agents = ids.filter((id) => id.startsWith("agent:")).map((id) => id.slice("agent:".length));
  const groups = ids.filter((id) => id.startsWith("group:")).map((id) => id.slice("group:".length));
  const arrows = edges.filter((e) => ids.includes(e.id));
  return { agents, groups, arrows };
}

/** Deletes the selected agents, groups and arrows (`edges`: the graph the ids
 * come from). An arrow that cannot be deleted refuses the whole edit, unless it
 * goes with an agent or group deleted too. */
export function deleteItems(spec: CrewSpec, ids: string[], edges: ViewEdge[]): EditResult {
  const { agents, groups, arrows } = sortSelection(ids, edges);
  if (agents.length + groups.length + arrows.length === 0) return refuse("Nothing here can be deleted");
  const going = new Set([...agents.map((a) => `agent:${a}`), ...groups.map((g) => `group:${g}`)]);
  const order = [...arrows].sort((a, b) => {
    if (!a.rule || !b.rule) return Number(Boolean(b.rule)) - Number(Boolean(a.rule));
    if (a.rule.agent !== b.rule.agent) return a.rule.agent < b.rule.agent ? -1 : 1;
    return b.rule.index - a.rule.index;
  });
  let next = spec;
  for (const edge of order) {
    const result = removeEdge(next, edge);
    if (result.ok) next = result.spec;
    else if (!going.has(edge.source) && !going.has(edge.target)) return result;
  }
  for (const group of groups) {
    const result = removeGroup(next, group);
    if (!result.ok) return result;
    next = result.spec;
  }
  if (agents.length > 0) {
    const result = removeAgents(next, agents);
    if (!result.ok) return result;
    next = result.spec;
  }
  return ok(next);
}
