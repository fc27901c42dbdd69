// Deleting several selected things in one edit (one undo step): arrows first —
// a rule's arrows from the last rule up, so earlier rules keep their places —
// then groups, then agents (whose removal takes their other arrows along).
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GraphView } from "../bindings/GraphView";
import { arrowsOf, inSelection, type NodeRef } from "../graph/refs";
import { removeAgents } from "./agents";
import { removeEdge } from "./edges";
import { removeGroup } from "./groups";
import { type EditResult, ok, refuse } from "./result";

/** What a selection holds, by kind: the crew's agents and groups by id, and the
 * arrows of `graph` (End and Wait cannot be deleted). */
export function sortSelection(spec: CrewSpec, ids: string[], graph: GraphView | null) {
  const { agents, groups } = inSelection(spec, ids);
  const arrows = graph ? arrowsOf(graph).filter((arrow) => ids.includes(arrow.view.id)) : [];
  return { agents, groups, arrows };
}

/** Deletes the selected agents, groups and arrows (`graph`: the one the ids come
 * from). An arrow that cannot be deleted refuses the whole edit, unless it goes with
 * an agent or group deleted too. */
export function deleteItems(spec: CrewSpec, ids: string[], graph: GraphView | null): EditResult {
  const { agents, groups, arrows } = sortSelection(spec, ids, graph);
  if (agents.length + groups.length + arrows.length === 0) return refuse("Nothing here can be deleted");
  const goes = (end: NodeRef) => (end.agent !== null && agents.includes(end.agent)) || (end.group !== null && groups.includes(end.group));
  const order = [...arrows].sort(({ view: a }, { view: b }) => {
    if (!a.rule || !b.rule) return Number(Boolean(b.rule)) - Number(Boolean(a.rule));
    if (a.rule.agent !== b.rule.agent) return a.rule.agent < b.rule.agent ? -1 : 1;
    return b.rule.index - a.rule.index;
  });
  let next = spec;
  for (const arrow of order) {
    const result = removeEdge(next, arrow);
    if (result.ok) next = result.spec;
    else if (!goes(arrow.source) && !goes(arrow.target)) return result;
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
