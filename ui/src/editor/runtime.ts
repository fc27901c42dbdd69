// Agents added while the app runs (runtime agents: `POST /crews/{crew}/agents`,
// `crewgraph agents add`): they are not in the crew's files, so the edited crew and
// the engine's verdict on it (`check_crew`) do not have them. The crew as it runs
// (`open_crew`) does: its runtime agents, their cards and the arrows that touch them
// are taken from it (`runtimePart`) and added to the verdict the editor draws
// (`withRuntime`), so the canvas draws them, marked, and a run's events name them
// by name; an agent of the crew whose reply without a signal goes to one of them
// says so on its card instead of being warned about as having no way out. Pure.
import type { AgentView } from "../bindings/AgentView";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";

/** The runtime agents of a crew as it runs, with their cards and arrows, and the
 * crew's own agents whose reply without a signal goes to one of them automatically
 * (an agent with no other agent to fall back to), by id. */
export type RuntimePart = { agents: AgentView[]; nodes: ViewNode[]; edges: ViewEdge[]; fallbacks: Record<string, string> };

/** The runtime agents of `running` (the crew as `open_crew` gives it); null when it has none. */
export function runtimePart(running: CrewDocument): RuntimePart | null {
  const agents = running.agents.filter((a) => a.runtime);
  if (agents.length === 0) return null;
  const ids = new Set(agents.map((a) => a.id));
  const nodes = running.graph.nodes.filter((n) => n.kind === "agent" && n.agent !== null && ids.has(n.agent));
  const nodeIds = new Set(nodes.map((n) => n.id));
  const edges = running.graph.edges.filter((e) => nodeIds.has(e.source) || nodeIds.has(e.target));
  const fallbacks: Record<string, string> = {};
  for (const a of running.agents) if (!a.runtime && a.automatic_fallback && ids.has(a.automatic_fallback)) fallbacks[a.id] = a.automatic_fallback;
  return { agents, nodes, edges, fallbacks };
}

/** The verdict with the runtime agents added: those the edited crew does not have
 * itself, their cards, and their arrows whose both ends are drawn. */
export function withRuntime(document: CrewDocument, part: RuntimePart | null): CrewDocument {
  if (!part) return document;
  const own = new Set(document.agents.map((a) => a.id));
  const agents = part.agents.filter((a) => !own.has(a.id));
  if (agents.length === 0) return document;
  const added = new Set(agents.map((a) => a.id));
  const nodes = part.nodes.filter((n) => n.agent !== null && added.has(n.agent) && !document.graph.nodes.some((m) => m.id === n.id));
  const drawn = new Set([...document.graph.nodes, ...nodes].map((n) => n.id));
  const edgeIds = new Set(document.graph.edges.map((e) => e.id));
  const edges = part.edges.filter((e) => drawn.has(e.source) && drawn.has(e.target) && !edgeIds.has(e.id));
  // The crew's own agents that would fall back to nobody, but do to a runtime agent.
  const mine = document.agents.map((a) =>
    a.automatic_fallback === null &&
    Object.hasOwn(part.fallbacks, a.id) &&
    added.has(part.fallbacks[a.id]) &&
    a.handoff_targets.length === 0 &&
    !a.is_terminal &&
    !a.wait_for_signal
      ? { ...a, automatic_fallback: part.fallbacks[a.id] }
      : a,
  );
  // Its "no way out" warning is not true of an agent that now falls back to one.
  const fallsBack = new Set(mine.filter((a, i) => a !== document.agents[i]).map((a) => a.id));
  const problems = document.problems.filter((p) => !(p.diagnostic.problem.code === "no_way_out" && fallsBack.has(p.diagnostic.problem.agent)));
  return {
    ...document,
    problems,
    agents: [...mine, ...agents],
    graph: { nodes: [...document.graph.nodes, ...nodes], edges: [...document.graph.edges, ...edges] },
  };
}

/** Two parts a person would see the same way (the same agents, names and arrows). */
export function samePart(a: RuntimePart | null, b: RuntimePart | null): boolean {
  const key = (p: RuntimePart | null) =>
    p ? JSON.stringify([p.agents.map((x) => [x.id, x.name, x.role]), p.nodes.map((n) => n.id), p.edges.map((e) => e.id)]) : "";
  return key(a) === key(b);
}

/** The agents a run's events name that the drawn crew does not have (an agent added
 * while the run goes on): the cue to look at the crew as it runs again. */
export function unknownAgents(document: CrewDocument | null, named: Iterable<string>): string[] {
  if (!document) return [];
  const known = new Set(document.agents.map((a) => a.id));
  return [...new Set(named)].filter((id) => !known.has(id));
}
