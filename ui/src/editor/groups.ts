// Parallel groups (`routing.parallel_groups`): created from a selection of agents,
// their members, settings, renames (rules leading to the group follow) and removal
// (rules leading only to the group go with it).
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GroupSpec } from "../bindings/GroupSpec";
import { mapSignalLists } from "./agents";
import { GROUP_KEYS, renameKey, setKey, text, withoutKeys } from "./keys";
import { type EditResult, ok, refuse } from "./result";
import { groupsOf, hasAgent, hasGroup, mapRules, mapTargets, setRoutingKey } from "./routing";
import { groupNodeId } from "../graph/refs";

/** What the group's settings panel may change. An empty `timeout` or `next_agent`
 * removes it (the default timeout; back to the agent that started the group). */
export type GroupPatch = { timeout?: string; wait_for_all?: boolean; next_agent?: string; description?: string };

/** A new group of `members` (at least one), waiting for all of them up to 30 s. */
export function createGroup(spec: CrewSpec, id: string, members: string[]): EditResult {
  const name = id.trim();
  if (name === "") return refuse("Every group needs a name");
  if (!/^[\p{L}\p{M}\p{N}_.-]+$/u.test(name)) {
    return refuse(`The group name '${name}' may only use letters, digits, '_', '-' and '.' (no spaces)`);
  }
  if (hasGroup(spec, name)) return refuse(`There is already a group called '${name}'`);
  if (hasAgent(spec, name)) return refuse(`There is already an agent called '${name}'; a group needs another name`);
  const agents = [...new Set(members)];
  if (agents.length === 0) return refuse("Pick at least one agent for the group");
  const unknown = agents.find((a) => !hasAgent(spec, a));
  if (unknown !== undefined) return refuse(`There is no agent called '${unknown}'`);
  const group: GroupSpec = { agents, timeout: "30s", wait_for_all: true };
  return ok(setRoutingKey(spec, "parallel_groups", { ...groupsOf(spec), [name]: group }));
}

export function addMember(spec: CrewSpec, group: string, agent: string): EditResult {
  if (!hasGroup(spec, group)) return refuse(`There is no group called '${group}'`);
  if (!hasAgent(spec, agent)) return refuse(`There is no agent called '${agent}'`);
  const found = groupsOf(spec)[group];
  const members = found.agents ?? [];
  if (members.includes(agent)) return refuse(`'${agent}' is already in the group '${group}'`);
  return ok(setGroup(spec, group, setKey(found, "agents", [...members, agent], GROUP_KEYS)));
}

/** Takes an agent out of a group; a group left without members stays. */
export function removeMember(spec: CrewSpec, group: string, agent: string): EditResult {
  if (!hasGroup(spec, group)) return refuse(`There is no group called '${group}'`);
  const found = groupsOf(spec)[group];
  const members = found.agents ?? [];
  if (!members.includes(agent)) return refuse(`'${agent}' is not in the group '${group}'`);
  return ok(setGroup(spec, group, { ...found, agents: members.filter((m) => m !== agent) }));
}

export function updateGroup(spec: CrewSpec, id: string, patch: GroupPatch): EditResult {
  if (!hasGroup(spec, id)) return refuse(`There is no group called '${id}'`);
  let group = groupsOf(spec)[id];
  if ("timeout" in patch) {
    const timeout = text(patch.timeout?.trim());
    // One spelling of the timeout: the Go engine's `timeout_seconds` gives way.
    if (timeout !== undefined) group = setKey(group, "timeout_seconds", undefined, GROUP_KEYS);
    group = setKey(group, "timeout", timeout, GROUP_KEYS);
  }
  if ("wait_for_all" in patch) group = setKey(group, "wait_for_all", patch.wait_for_all, GROUP_KEYS);
  if ("next_agent" in patch) {
    const next = text(patch.next_agent);
    if (next !== undefined && !hasAgent(spec, next)) return refuse(`There is no agent called '${next}'`);
    group = setKey(group, "next_agent", next, GROUP_KEYS);
  }
  if ("description" in patch) group = setKey(group, "description", text(patch.description), GROUP_KEYS);
  return ok(setGroup(spec, id, group));
}

/** Gives a group a new name; rules and valid targets naming it follow. */
export function renameGroup(spec: CrewSpec, from: string, to: string): EditResult {
  if (!hasGroup(spec, from)) return refuse(`There is no group called '${from}'`);
  const name = to.trim();
  if (name === from) return ok(spec);
  if (name === "") return refuse("Every group needs a name");
  if (!/^[\p{L}\p{M}\p{N}_.-]+$/u.test(name)) {
    return refuse(`The group name '${name}' may only use letters, digits, '_', '-' and '.' (no spaces)`);
  }
  if (hasGroup(spec, name)) return refuse(`There is already a group called '${name}'`);
  if (hasAgent(spec, name)) return refuse(`There is already an agent called '${name}'; a group needs another name`);
  const swap = (target: string) => (target === from ? name : target);
  let next = setRoutingKey(spec, "parallel_groups", renameKey(groupsOf(spec), from, name));
  next = mapRules(next, (rule) => mapTargets(rule, swap));
  next = mapRegistry(next, swap);
  return ok(next, { [groupNodeId(from)]: groupNodeId(name) });
}

/** Removes a group; a rule leading only to it goes too, a list loses it. */
export function removeGroup(spec: CrewSpec, id: string): EditResult {
  if (!hasGroup(spec, id)) return refuse(`There is no group called '${id}'`);
  const drop = (target: string) => (target === id ? null : target);
  let next = setRoutingKey(spec, "parallel_groups", withoutKeys(groupsOf(spec), new Set([id])));
  next = mapRules(next, (rule) => mapTargets(rule, drop));
  next = mapRegistry(next, drop);
  return ok(next);
}

function setGroup(spec: CrewSpec, id: string, group: GroupSpec): CrewSpec {
  const groups = groupsOf(spec);
  if (groups[id] === group) return spec;
  return setRoutingKey(spec, "parallel_groups", { ...groups, [id]: group });
}

function mapRegistry(spec: CrewSpec, fn: (name: string) => string | null): CrewSpec {
  if (!spec.signals) return spec;
  const signals = spec.signals.map((entry) => mapSignalLists(entry, fn));
  return signals.every((s, i) => s === spec.signals?.[i]) ? spec : { ...spec, signals };
}
