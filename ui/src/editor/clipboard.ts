// Copy and paste of agents: the payload holds the copied agents and the edges
// among them only (their rules to each other, to End and to Wait, and their
// handoff targets among them), so a paste never points at agents it did not bring.
// Pasted agents get fresh ids (`teacher` → `teacher_2`) and their rules follow.
import type { AgentSpec } from "../bindings/AgentSpec";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { RuleSpec } from "../bindings/RuleSpec";
import type { SignalSpec } from "../bindings/SignalSpec";
import { uniqueAgentId } from "./agents";
import { AGENT_KEYS, CREW_KEYS, list, setKey } from "./keys";
import { addEntry, builtinSignal, declaredSignal, isStrict, ruleBehavior } from "./registry";
import { type EditOk, type Refusal, ok, refuse } from "./result";
import { mapTargets, routingOf, rulesOf, setRules } from "./routing";

export type ClipboardPayload = {
  /** The copied agents in crew order, with `routing.agent_behaviors` folded into
   * their own `is_terminal` / `wait_for_signal`. */
  agents: AgentSpec[];
  /** Per copied agent, its rules that stay among the copied agents (or end or pause). */
  rules: Record<string, RuleSpec[]>;
  /** Those rules' signals as the source crew registered them (behaviour,
   * description, pattern), for a paste into a crew with a strict registry. */
  signals: SignalSpec[];
};

/** A paste: the new spec and each copied id's new id. */
export type Pasted = EditOk & { ids: Record<string, string> };

export function copyAgents(spec: CrewSpec, ids: string[]): ClipboardPayload {
  const chosen = new Set(ids);
  const within = (target: string) => (chosen.has(target) ? target : null);
  const behaviors = routingOf(spec).agent_behaviors ?? {};
  const agents: AgentSpec[] = [];
  const rules: Record<string, RuleSpec[]> = {};
  const signals = new Map<string, SignalSpec>();
  for (const agent of spec.agents) {
    const id = agent.id ?? "";
    if (!chosen.has(id)) continue;
    let copy = setKey(agent, "handoff_targets", list((agent.handoff_targets ?? []).filter((t) => chosen.has(t))), AGENT_KEYS);
    const behavior = Object.hasOwn(behaviors, id) ? behaviors[id] : undefined;
    if (behavior?.is_terminal) copy = setKey(copy, "is_terminal", true, AGENT_KEYS);
    if (behavior?.wait_for_signal) copy = setKey(copy, "wait_for_signal", true, AGENT_KEYS);
    agents.push(copy);
    const kept = rulesOf(spec, id)
      .map((rule) => mapTargets(rule, within))
      .filter((rule): rule is RuleSpec => rule !== null);
    if (kept.length > 0) rules[id] = kept;
    for (const rule of kept) {
      const name = rule.signal ?? "";
      if (name !== "" && !signals.has(name)) signals.set(name, registration(spec, name, rule));
    }
  }
  return { agents, rules, signals: [...signals.values()] };
}

/** Pastes a payload: agents get ids no agent or group has, their rules and handoff
 * targets follow the new ids, and a strict registry gets the signals it lacks. A
 * crew without an entry point starts at the first pasted agent. */
export function pasteAgents(spec: CrewSpec, payload: ClipboardPayload): Pasted | Refusal {
  if (payload.agents.length === 0) return refuse("There is nothing to paste");
  const ids: Record<string, string> = {};
  let next = spec;
  for (const agent of payload.agents) {
    const from = agent.id ?? "agent";
    const id = uniqueAgentId(next, from);
    ids[from] = id;
    let copy = setKey(agent, "id", id, AGENT_KEYS);
    if (id !== from && agent.name) copy = setKey(copy, "name", `${agent.name} ${id.slice(from.length + 1)}`, AGENT_KEYS);
    next = { ...next, agents: [...next.agents, copy] };
  }
  const rename = (name: string) => ids[name] ?? null;
  next = {
    ...next,
    agents: next.agents.map((agent, i) => {
      if (i < spec.agents.length || !agent.handoff_targets) return agent;
      return setKey(agent, "handoff_targets", list(agent.handoff_targets.map(rename).filter((t) => t !== null)), AGENT_KEYS);
    }),
  };
  for (const [from, rules] of Object.entries(payload.rules)) {
    const id = ids[from];
    if (id === undefined) continue;
    const moved = rules.map((rule) => mapTargets(rule, rename)).filter((rule): rule is RuleSpec => rule !== null);
    if (moved.length > 0) next = setRules(next, id, [...rulesOf(next, id), ...moved]);
  }
  if (isStrict(next)) {
    for (const entry of payload.signals) {
      const name = entry.name ?? "";
      if (name !== "" && !declaredSignal(next, name) && !builtinSignal(name)) next = addEntry(next, entry);
    }
  }
  if (!spec.entry_point) next = setKey(next, "entry_point", ids[payload.agents[0].id ?? "agent"], CREW_KEYS);
  return { ...ok(next), ids };
}

/** How the source crew registers a signal, without its agent-specific lists. */
function registration(spec: CrewSpec, name: string, rule: RuleSpec): SignalSpec {
  const declared = declaredSignal(spec, name);
  const entry: SignalSpec = { name };
  if (declared?.pattern) entry.pattern = declared.pattern;
  entry.behavior = ruleBehavior(spec, rule);
  const description = declared?.description ?? builtinSignal(name)?.description;
  if (description) entry.description = description;
  return entry;
}
