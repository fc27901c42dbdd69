// Adding, changing, renaming and removing agents. A rename or a removal follows
// every reference to the agent: the entry point, its rules and the rules leading to
// it, parallel groups, handoff targets, the signal registry's allowed agents and
// valid targets, `agent_behaviors`, the Go engine's `defaults`, the finalizer.
import type { AgentSpec } from "../bindings/AgentSpec";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GroupSpec } from "../bindings/GroupSpec";
import type { SignalSpec } from "../bindings/SignalSpec";
import {
  AGENT_KEYS,
  CREW_KEYS,
  GROUP_KEYS,
  SIGNAL_KEYS,
  list,
  mapList,
  mapValues,
  renameKey,
  setKey,
  text,
  withoutKeys,
} from "./keys";
import { type EditResult, ok, refuse } from "./result";
import { hasAgent, hasGroup, mapRules, mapTargets, routingOf, setRoutingKey } from "./routing";
import { agentNodeId } from "../graph/refs";

/** What the agent form may change; the id changes through `renameAgent`. */
export type AgentPatch = Omit<Partial<AgentSpec>, "id">;

const TEXT_KEYS = new Set<keyof AgentSpec>([
  "name",
  "role",
  "description",
  "objective",
  "backstory",
  "system_prompt",
  "model",
  "provider",
  "provider_url",
]);
const LIST_KEYS = new Set<keyof AgentSpec>(["tags", "tools", "handoff_targets"]);

/** Adds an agent at the end; the first agent of a crew without an entry point
 * becomes it. Refuses an empty, malformed or taken id. */
export function addAgent(spec: CrewSpec, agent: AgentSpec): EditResult {
  const id = agent.id?.trim() ?? "";
  const problem = idProblem(spec, id);
  if (problem) return refuse(problem);
  let fields: AgentSpec = { id };
  for (const key of AGENT_KEYS) {
    if (key !== "id") fields = setKey(fields, key, stored(key, agent[key]), AGENT_KEYS);
  }
  let next: CrewSpec = { ...spec, agents: [...spec.agents, fields] };
  if (!spec.entry_point) next = setKey(next, "entry_point", id, CREW_KEYS);
  return ok(next);
}

/** Changes an agent's fields: existing keys keep their place, new ones go where
 * they belong, and an emptied text or list field is removed rather than written "". */
export function updateAgent(spec: CrewSpec, id: string, patch: AgentPatch): EditResult {
  const at = spec.agents.findIndex((a) => a.id === id);
  if (at < 0) return refuse(`There is no agent called '${id}'`);
  let agent = spec.agents[at];
  for (const key of Object.keys(patch) as (keyof AgentPatch)[]) {
    if ((key as string) === "id") continue;
    agent = setKey(agent, key, stored(key, patch[key]), AGENT_KEYS);
  }
  if (agent === spec.agents[at]) return ok(spec);
  return ok({ ...spec, agents: spec.agents.map((a, i) => (i === at ? agent : a)) });
}

/** Gives an agent a new id; every reference follows. */
export function renameAgent(spec: CrewSpec, from: string, to: string): EditResult {
  if (!hasAgent(spec, from)) return refuse(`There is no agent called '${from}'`);
  const id = to.trim();
  if (id === from) return ok(spec);
  const problem = idProblem(spec, id);
  if (problem) return refuse(problem);
  const swap = (name: string) => (name === from ? id : name);
  let next: CrewSpec = {
    ...spec,
    agents: mapList(spec.agents, (agent) => {
      const renamed = agent.id === from ? { ...agent, id } : agent;
      return replaceHandoffs(renamed, (t) => swap(t));
    }),
  };
  if (spec.entry_point === from) next = { ...next, entry_point: id };
  next = mapRules(next, (rule) => mapTargets(rule, swap));
  next = renameRoutingKeys(next, from, id);
  next = mapGroups(next, (group) => mapGroupAgents(group, swap));
  next = mapEntries(next, (entry) => mapSignalLists(entry, swap));
  const routing = routingOf(next);
  if (routing.defaults) next = setRoutingKey(next, "defaults", mapValues(routing.defaults, swap));
  if (routing.finalizer === from) next = setRoutingKey(next, "finalizer", id);
  return ok(next, { [agentNodeId(from)]: agentNodeId(id) });
}

/** Removes agents and everything that refers to them. A rule leading only to them
 * goes; a broadcast loses them from its list. Their groups stay (perhaps empty).
 * The entry point moves to the first remaining agent, or is removed. */
export function removeAgents(spec: CrewSpec, ids: string[]): EditResult {
  const gone = new Set(ids.filter((id) => hasAgent(spec, id)));
  if (gone.size === 0) return refuse("There is no such agent to remove");
  const keep = (name: string) => (gone.has(name) ? null : name);
  const agents = spec.agents.filter((a) => !gone.has(a.id ?? "")).map((a) => replaceHandoffs(a, keep));
  let next: CrewSpec = { ...spec, agents };
  if (spec.entry_point !== undefined && gone.has(spec.entry_point)) {
    next = setKey(next, "entry_point", agents.find((a) => a.id)?.id, CREW_KEYS);
  }
  const rules = routingOf(next).signals;
  if (rules) next = setRoutingKey(next, "signals", withoutKeys(rules, gone));
  next = mapRules(next, (rule) => mapTargets(rule, keep));
  next = mapGroups(next, (group) => mapGroupAgents(group, keep));
  next = mapEntries(next, (entry) => mapSignalLists(entry, keep));
  const routing = routingOf(next);
  if (routing.agent_behaviors) next = setRoutingKey(next, "agent_behaviors", withoutKeys(routing.agent_behaviors, gone));
  if (routing.defaults) {
    const kept = Object.entries(routing.defaults).filter(([from, to]) => !gone.has(from) && !gone.has(to));
    if (kept.length < Object.keys(routing.defaults).length) next = setRoutingKey(next, "defaults", Object.fromEntries(kept));
  }
  if (routing.finalizer !== undefined && gone.has(routing.finalizer)) next = setRoutingKey(next, "finalizer", undefined);
  return ok(next);
}

/** `base`, or `base_2`, `base_3`… : the first id no agent or group has. */
export function uniqueAgentId(spec: CrewSpec, base: string): string {
  const root = base.trim() || "agent";
  const taken = (id: string) => hasAgent(spec, id) || hasGroup(spec, id);
  if (!taken(root)) return root;
  let n = 2;
  while (taken(`${root}_${n}`)) n += 1;
  return `${root}_${n}`;
}

/** An id from a display name: lower case, spaces as `_`, keeping letters of any
 * script, digits, `_`, `-` and `.` ("Giáo viên" → "giáo_viên"); "agent" when
 * nothing is left. */
export function newAgentId(name: string): string {
  const slug = name
    .normalize("NFC")
    .toLowerCase()
    .trim()
    .replace(/\s+/gu, "_")
    .replace(/[^\p{L}\p{M}\p{N}_.-]/gu, "");
  return slug || "agent";
}

/** Why `id` cannot be a new agent's id, or null. */
function idProblem(spec: CrewSpec, id: string): string | null {
  if (id === "") return "Every agent needs an id";
  if (!/^[\p{L}\p{M}\p{N}_.-]+$/u.test(id)) {
    return `The id '${id}' may only use letters, digits, '_', '-' and '.' (no spaces)`;
  }
  if (hasAgent(spec, id)) return `There is already an agent called '${id}'`;
  if (hasGroup(spec, id)) return `There is already a group called '${id}'`;
  return null;
}

/** A field's value as stored: empty text and empty lists are not written. */
function stored<K extends keyof AgentSpec>(key: K, value: AgentSpec[K]): AgentSpec[K] | undefined {
  if (TEXT_KEYS.has(key) && typeof value === "string") return text(value) as AgentSpec[K] | undefined;
  if (LIST_KEYS.has(key) && Array.isArray(value)) return list(value) as AgentSpec[K] | undefined;
  return value;
}

function replaceHandoffs(agent: AgentSpec, fn: (target: string) => string | null): AgentSpec {
  const targets = agent.handoff_targets;
  if (!targets) return agent;
  const next = mapNames(targets, fn);
  return next === targets ? agent : setKey(agent, "handoff_targets", list(next), AGENT_KEYS);
}

/** A list of names rewritten (null drops a name), or the same list. */
export function mapNames(names: string[], fn: (name: string) => string | null): string[] {
  const mapped = names.map(fn);
  if (mapped.every((n, i) => n === names[i])) return names;
  return mapped.filter((n): n is string => n !== null);
}

function renameRoutingKeys(spec: CrewSpec, from: string, to: string): CrewSpec {
  let next = spec;
  const routing = routingOf(spec);
  if (routing.signals) next = setRoutingKey(next, "signals", renameKey(routing.signals, from, to));
  if (routing.agent_behaviors) next = setRoutingKey(next, "agent_behaviors", renameKey(routing.agent_behaviors, from, to));
  if (routing.defaults) next = setRoutingKey(next, "defaults", renameKey(routing.defaults, from, to));
  return next;
}

function mapGroups(spec: CrewSpec, fn: (group: GroupSpec) => GroupSpec): CrewSpec {
  const groups = routingOf(spec).parallel_groups;
  return groups ? setRoutingKey(spec, "parallel_groups", mapValues(groups, fn)) : spec;
}

/** A group's members and next agent rewritten (null removes). Members may run out:
 * the group stays, and the engine says it is empty. */
function mapGroupAgents(group: GroupSpec, fn: (name: string) => string | null): GroupSpec {
  let next = group;
  if (group.agents) {
    const members = mapNames(group.agents, fn);
    if (members !== group.agents) next = { ...next, agents: members };
  }
  if (group.next_agent !== undefined) {
    const after = fn(group.next_agent);
    if (after !== group.next_agent) next = setKey(next, "next_agent", after ?? undefined, GROUP_KEYS);
  }
  return next;
}

function mapEntries(spec: CrewSpec, fn: (entry: SignalSpec) => SignalSpec): CrewSpec {
  if (!spec.signals) return spec;
  const signals = mapList(spec.signals, fn);
  return signals === spec.signals ? spec : { ...spec, signals };
}

/** A registry entry's allowed agents and valid targets rewritten; a list left empty
 * is removed (an empty list and a missing one both mean "any"). */
export function mapSignalLists(entry: SignalSpec, fn: (name: string) => string | null): SignalSpec {
  let next = entry;
  for (const key of ["allowed_agents", "valid_targets"] as const) {
    const names = entry[key];
    if (!names) continue;
    const mapped = mapNames(names, fn);
    if (mapped !== names) next = setKey(next, key, list(mapped), SIGNAL_KEYS);
  }
  return next;
}
