// Drawing, changing and deleting the graph's edges in crew terms. A signal edge is
// a routing rule (`routing.signals.<agent>[index]`); a dashed "otherwise" edge is a
// handoff target; "member", "then", "finishes" and "waits for you" edges come from
// groups and agent flags. `connect` holds the rules for drawing a new edge.
import type { Behavior } from "../bindings/Behavior";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { RuleRef } from "../bindings/RuleRef";
import type { RuleSpec } from "../bindings/RuleSpec";
import type { Arrow, NodeRef } from "../graph/refs";
import { removeMember } from "./groups";
import { AGENT_KEYS, GROUP_KEYS, RULE_KEYS, list, setKey, text, withoutKeys } from "./keys";
import {
  declaredSignal,
  ensureRegistered,
  isStrict,
  promoteRegistry,
  registeredBehavior,
  ruleBehavior,
} from "./registry";
import { type EditOk, type EditResult, type Refusal, ok, refuse } from "./result";
import { groupsOf, hasAgent, hasGroup, routingOf, rulesOf, setRoutingKey, setRules, targetsOf } from "./routing";

/** What a rule can lead to: an agent, a group, End (terminate) or Wait (pause). */
export type RuleTarget =
  | { kind: "agent"; id: string }
  | { kind: "group"; id: string }
  | { kind: "end" }
  | { kind: "wait" };

/** The behaviours a person picks when drawing to an agent or a group; End and Wait
 * imply theirs. */
export type EdgeBehavior = "route" | "broadcast" | "parallel";

export type Connection = {
  /** The emitting agent's id (not its node id). */
  from: string;
  /** The node the edge was dropped on (its data: which agent or group it is). */
  to: NodeRef;
  signal: string;
  /** Omitted: the signal's registered behaviour when it is a broadcast, else route. */
  behavior?: EdgeBehavior;
  /** Written on the new rule. */
  description?: string;
};

/** The engine's signal-name check (format, normalization clashes): an error
 * message, or null when the name is fine. */
export type SignalCheck = (name: string) => string | null;

export type ConnectOptions = { confirmSelf?: boolean; checkSignal?: SignalCheck };

/** Refused until the person confirms (an agent connected to itself). */
export type NeedsConfirmation = Refusal & { needsConfirmation: true };

/** A drawn edge: the new spec and the rule the edge now draws. */
export type Connected = EditOk & { rule: RuleRef };

/** What an edge of the graph is in the crew file, so it can be edited or deleted. */
export type EdgeRef =
  | { kind: "rule"; agent: string; index: number; target: RuleTarget | null }
  | { kind: "fallback"; from: string; to: string }
  | { kind: "membership"; group: string; agent: string }
  | { kind: "group_next"; group: string; agent: string }
  | { kind: "terminal"; agent: string }
  | { kind: "waits"; agent: string };

/** What a rule targets when an edge is dropped on node `to`; null for the router. */
export function connectTarget(to: NodeRef): RuleTarget | null {
  if (to.kind === "end") return { kind: "end" };
  if (to.kind === "wait") return { kind: "wait" };
  if (to.agent) return { kind: "agent", id: to.agent };
  if (to.group) return { kind: "group", id: to.group };
  return null;
}

/**
 * Adds the rule an edge drawn from agent `from` to node `to` stands for: to End a
 * terminate rule and to Wait a pause rule (target ""), to a group a parallel rule,
 * to an agent a route, or a broadcast (added to the agent's broadcast rule of the
 * same signal when it has one, whose target becomes a list).
 *
 * In a strict registry a new signal is registered with the edge's behaviour, and a
 * registered or built-in signal must fit the edge (behaviour, allowed agents, valid
 * targets). A crew without `signals:` takes each rule's behaviour from its target,
 * which cannot say "pause" or "broadcast to one agent": drawing those makes the
 * registry strict first (`promoteRegistry`).
 */
export function connect(
  spec: CrewSpec,
  connection: Connection,
  options: ConnectOptions = {},
): Connected | Refusal | NeedsConfirmation {
  const signal = connection.signal.trim();
  if (signal === "") return refuse("Pick or type the signal for this connection");
  const formatError = options.checkSignal?.(signal);
  if (formatError) return refuse(formatError);
  const { from } = connection;
  if (!hasAgent(spec, from)) return refuse(`There is no agent called '${from}'`);
  const target = connectTarget(connection.to);
  if (target === null) return refuse("A connection can only lead to an agent, a group, End or Wait");
  if (target.kind === "agent" && !hasAgent(spec, target.id)) return refuse(`There is no agent called '${target.id}'`);
  if (target.kind === "group" && !hasGroup(spec, target.id)) return refuse(`There is no group called '${target.id}'`);
  const behavior = edgeBehavior(spec, signal, target, connection.behavior);
  if (typeof behavior !== "string") return behavior;

  const broadcastAt = behavior === "broadcast" ? broadcastRuleOf(spec, from, signal) : -1;
  const impliable = behavior !== "pause" && !(behavior === "broadcast" && broadcastAt < 0);
  const base = isStrict(spec) || impliable ? spec : promoteRegistry(spec);
  if (isStrict(base)) {
    const problem = registryProblem(base, signal, behavior, from, target);
    if (problem) return refuse(problem);
  }
  const duplicate = rulesOf(base, from).some((rule) => rule.signal === signal && leadsTo(rule, target));
  if (duplicate) return refuse(`'${from}' already sends '${signal}' ${toWords(target)}`);
  if (target.kind === "agent" && target.id === from && !options.confirmSelf) {
    return {
      ok: false,
      needsConfirmation: true,
      error: `'${from}' would hand the work back to itself on '${signal}'. Connect it anyway?`,
    };
  }

  const rules = rulesOf(base, from);
  let index: number;
  let next: RuleSpec[];
  if (broadcastAt >= 0 && target.kind === "agent") {
    const rule = rules[broadcastAt];
    index = broadcastAt;
    next = rules.map((r, i) => (i === broadcastAt ? { ...rule, target: [...targetsOf(rule), target.id] } : r));
  } else {
    let rule: RuleSpec = { signal, target: ruleTarget(target, behavior) };
    rule = setKey(rule, "description", text(connection.description?.trim()), RULE_KEYS);
    index = rules.length;
    next = [...rules, rule];
  }
  const written = ensureRegistered(setRules(base, from, next), signal, behavior);
  return { ...ok(written), rule: { agent: from, index } };
}

export function removeRule(spec: CrewSpec, agent: string, index: number): EditResult {
  const rules = rulesOf(spec, agent);
  if (index < 0 || index >= rules.length) return refuse("That connection is no longer there");
  return ok(setRules(spec, agent, rules.filter((_, i) => i !== index)));
}

/** A change to a rule; an empty description is removed, a null target means none. */
export type RulePatch = { signal?: string; description?: string; target?: string | string[] | null };

/**
 * Changes a rule's signal, description or target. A new signal in a strict
 * registry is registered with the rule's current behaviour, and a registered one
 * must fit that behaviour; targets must name agents or groups. Whether a changed
 * target fits the signal is left to the engine's check.
 */
export function updateRule(
  spec: CrewSpec,
  agent: string,
  index: number,
  patch: RulePatch,
  options: { checkSignal?: SignalCheck } = {},
): EditResult {
  const rules = rulesOf(spec, agent);
  if (index < 0 || index >= rules.length) return refuse("That connection is no longer there");
  const old = rules[index];
  let rule = old;
  let next = spec;
  if (patch.signal !== undefined) {
    const signal = patch.signal.trim();
    if (signal === "") return refuse("A connection needs a signal");
    if (signal !== old.signal) {
      const formatError = options.checkSignal?.(signal);
      if (formatError) return refuse(formatError);
      if (isStrict(spec)) {
        const behavior = ruleBehavior(spec, old);
        const registered = registeredBehavior(spec, signal);
        if (registered !== undefined && !fits(registered, behavior)) {
          return refuse(`'${signal}' ${DOES[registered]}, but this connection ${DOES[behavior]}. Pick another signal.`);
        }
        next = ensureRegistered(next, signal, behavior);
      }
      rule = setKey(rule, "signal", signal, RULE_KEYS);
    }
  }
  if ("description" in patch) rule = setKey(rule, "description", text(patch.description), RULE_KEYS);
  if ("target" in patch) {
    const target = patch.target ?? "";
    const names = typeof target === "string" ? [target].filter((t) => t !== "") : target;
    const unknown = names.find((t) => !hasAgent(spec, t) && !hasGroup(spec, t));
    if (unknown !== undefined) return refuse(`There is no agent or group called '${unknown}'`);
    rule = setKey(rule, "target", target, RULE_KEYS);
  }
  if (rule === old) return ok(spec);
  const clash = rules.some(
    (r, i) => i !== index && r.signal === rule.signal && sameTargets(targetsOf(r), targetsOf(rule)),
  );
  if (clash) return refuse(`'${agent}' already has a connection on '${rule.signal}' to the same place`);
  return ok(setRules(next, agent, rules.map((r, i) => (i === index ? rule : r))));
}

/** Adds a dashed "otherwise" edge: `to` becomes one of `from`'s handoff targets. */
export function addFallback(spec: CrewSpec, from: string, to: string): EditResult {
  if (!hasAgent(spec, from)) return refuse(`There is no agent called '${from}'`);
  if (!hasAgent(spec, to)) return refuse(`There is no agent called '${to}'`);
  if (from === to) return refuse("An agent cannot fall back to itself");
  const at = spec.agents.findIndex((a) => a.id === from);
  const agent = spec.agents[at];
  const targets = agent.handoff_targets ?? [];
  if (targets.includes(to)) return refuse(`'${from}' already falls back to '${to}'`);
  const changed = setKey(agent, "handoff_targets", [...targets, to], AGENT_KEYS);
  return ok({ ...spec, agents: spec.agents.map((a, i) => (i === at ? changed : a)) });
}

/** Removes an "otherwise" edge: from the handoff targets and the Go engine's
 * `routing.defaults`, wherever it was written. */
export function removeFallback(spec: CrewSpec, from: string, to: string): EditResult {
  let next = spec;
  const at = spec.agents.findIndex((a) => a.id === from);
  const targets = at >= 0 ? (spec.agents[at].handoff_targets ?? []) : [];
  if (targets.includes(to)) {
    const changed = setKey(spec.agents[at], "handoff_targets", list(targets.filter((t) => t !== to)), AGENT_KEYS);
    next = { ...next, agents: next.agents.map((a, i) => (i === at ? changed : a)) };
  }
  const defaults = routingOf(spec).defaults;
  if (defaults && Object.hasOwn(defaults, from) && defaults[from] === to) {
    next = setRoutingKey(next, "defaults", withoutKeys(defaults, new Set([from])));
  }
  if (next === spec) return refuse(`'${from}' does not fall back to '${to}'`);
  return ok(next);
}

/** What an edge of the engine's graph is in the crew file; null for the edges a
 * routing strategy draws (score, finalize, assign, asks), which are not edited. */
export function edgeToEdit({ view: edge, source, target }: Arrow): EdgeRef | null {
  const sourceAgent = source.agent;
  const sourceGroup = source.group;
  const targetAgent = target.agent;
  switch (edge.kind) {
    case "signal":
      return edge.rule
        ? { kind: "rule", agent: edge.rule.agent, index: edge.rule.index, target: connectTarget(target) }
        : null;
    case "fallback":
      return sourceAgent !== null && targetAgent !== null ? { kind: "fallback", from: sourceAgent, to: targetAgent } : null;
    case "membership":
      return sourceGroup !== null && targetAgent !== null
        ? { kind: "membership", group: sourceGroup, agent: targetAgent }
        : null;
    case "group_next":
      return sourceGroup !== null && targetAgent !== null
        ? { kind: "group_next", group: sourceGroup, agent: targetAgent }
        : null;
    case "terminal":
      return sourceAgent !== null ? { kind: "terminal", agent: sourceAgent } : null;
    case "waits":
      return sourceAgent !== null ? { kind: "waits", agent: sourceAgent } : null;
    default:
      return null;
  }
}

/**
 * Deletes what an edge draws. One edge of a broadcast takes its target out of the
 * list (the rule goes with the last one); a signal edge otherwise removes its rule.
 * "finishes" and "waits for you" edges clear the agent's flag, wherever it is set
 * (on the agent or in `routing.agent_behaviors`).
 */
export function removeEdge(spec: CrewSpec, arrow: Arrow): EditResult {
  const ref = edgeToEdit(arrow);
  if (ref === null) return refuse("This connection comes from the crew's routing strategy and cannot be deleted");
  switch (ref.kind) {
    case "rule":
      return removeRuleTarget(spec, ref.agent, ref.index, ref.target);
    case "fallback":
      return removeFallback(spec, ref.from, ref.to);
    case "membership":
      return removeMember(spec, ref.group, ref.agent);
    case "group_next":
      return removeNextAgent(spec, ref.group, ref.agent);
    case "terminal":
      return clearFlag(spec, ref.agent, "is_terminal");
    case "waits":
      return clearFlag(spec, ref.agent, "wait_for_signal");
  }
}

/** What an arrow can be re-pointed to: agents (a route, an "otherwise" arrow, the
 * move after a group) or groups (a rule that starts a group); null for arrows that
 * cannot lead elsewhere (to End, to Wait, a membership, the strategy's own). */
export function repointKind(arrow: Arrow): "agent" | "group" | null {
  const ref = edgeToEdit(arrow);
  if (ref === null) return null;
  if (ref.kind === "fallback" || ref.kind === "group_next") return "agent";
  if (ref.kind === "rule" && (ref.target?.kind === "agent" || ref.target?.kind === "group")) return ref.target.kind;
  return null;
}

/**
 * Makes an arrow lead to `to` (an agent's or a group's id, as `repointKind` says)
 * instead: a rule's target (one target of a broadcast), an "otherwise" arrow's
 * handoff target (in its place in the list), or the agent a group hands back to.
 * Whether the signal may lead there is the engine's check, as for any edit.
 */
export function repointEdge(spec: CrewSpec, arrow: Arrow, to: string): EditResult {
  const ref = edgeToEdit(arrow);
  const kind = repointKind(arrow);
  if (ref === null || kind === null) return refuse("This arrow cannot lead anywhere else");
  if (kind === "agent" && !hasAgent(spec, to)) return refuse(`There is no agent called '${to}'`);
  if (kind === "group" && !hasGroup(spec, to)) return refuse(`There is no group called '${to}'`);
  switch (ref.kind) {
    case "rule": {
      const rule = rulesOf(spec, ref.agent)[ref.index];
      const from = ref.target && (ref.target.kind === "agent" || ref.target.kind === "group") ? ref.target.id : null;
      if (!rule || from === null) return refuse("That connection is no longer there");
      if (from === to) return ok(spec);
      if (Array.isArray(rule.target)) {
        if (rule.target.includes(to)) return refuse(`'${ref.agent}' already sends '${rule.signal}' to '${to}'`);
        return updateRule(spec, ref.agent, ref.index, { target: rule.target.map((t) => (t === from ? to : t)) });
      }
      return updateRule(spec, ref.agent, ref.index, { target: to });
    }
    case "fallback": {
      if (ref.to === to) return ok(spec);
      if (ref.from === to) return refuse("An agent cannot fall back to itself");
      const at = spec.agents.findIndex((a) => a.id === ref.from);
      const targets = at >= 0 ? (spec.agents[at].handoff_targets ?? []) : [];
      if (targets.includes(to)) return refuse(`'${ref.from}' already falls back to '${to}'`);
      if (!targets.includes(ref.to)) {
        // Written as the Go engine's `routing.defaults`: replaced there.
        const removed = removeFallback(spec, ref.from, ref.to);
        return removed.ok ? addFallback(removed.spec, ref.from, to) : removed;
      }
      const changed = setKey(spec.agents[at], "handoff_targets", targets.map((t) => (t === ref.to ? to : t)), AGENT_KEYS);
      return ok({ ...spec, agents: spec.agents.map((a, i) => (i === at ? changed : a)) });
    }
    case "group_next": {
      const group = groupsOf(spec)[ref.group];
      if (!group) return refuse(`There is no group called '${ref.group}'`);
      if (group.next_agent === to) return ok(spec);
      const changed = setKey(group, "next_agent", to, GROUP_KEYS);
      return ok(setRoutingKey(spec, "parallel_groups", { ...groupsOf(spec), [ref.group]: changed }));
    }
    default:
      return refuse("This arrow cannot lead anywhere else");
  }
}

/** Clears `is_terminal` or `wait_for_signal` on the agent and in its behaviours. */
export function clearFlag(spec: CrewSpec, agent: string, flag: "is_terminal" | "wait_for_signal"): EditResult {
  const at = spec.agents.findIndex((a) => a.id === agent);
  if (at < 0) return refuse(`There is no agent called '${agent}'`);
  let next = spec;
  if (spec.agents[at][flag] !== undefined) {
    const changed = setKey(spec.agents[at], flag, undefined, AGENT_KEYS);
    next = { ...next, agents: next.agents.map((a, i) => (i === at ? changed : a)) };
  }
  const behaviors = routingOf(spec).agent_behaviors;
  const behavior = behaviors && Object.hasOwn(behaviors, agent) ? behaviors[agent] : undefined;
  if (behaviors && behavior && behavior[flag] !== undefined) {
    const { [flag]: _cleared, ...rest } = behavior;
    const others = Object.keys(rest).length > 0 ? { ...behaviors, [agent]: rest } : withoutKeys(behaviors, new Set([agent]));
    next = setRoutingKey(next, "agent_behaviors", others);
  }
  return ok(next);
}

function removeRuleTarget(spec: CrewSpec, agent: string, index: number, target: RuleTarget | null): EditResult {
  const rules = rulesOf(spec, agent);
  const rule = rules[index];
  if (!rule) return refuse("That connection is no longer there");
  const id = target && (target.kind === "agent" || target.kind === "group") ? target.id : null;
  if (Array.isArray(rule.target) && id !== null && rule.target.includes(id) && targetsOf(rule).length > 1) {
    const changed = { ...rule, target: rule.target.filter((t) => t !== id) };
    return ok(setRules(spec, agent, rules.map((r, i) => (i === index ? changed : r))));
  }
  return removeRule(spec, agent, index);
}

function removeNextAgent(spec: CrewSpec, group: string, agent: string): EditResult {
  if (!hasGroup(spec, group)) return refuse(`There is no group called '${group}'`);
  const found = groupsOf(spec)[group];
  if (found.next_agent !== agent) {
    return refuse(
      "After the group the work goes back to the agent that started it; pick a next agent in the group's settings to change that",
    );
  }
  const changed = setKey(found, "next_agent", undefined, GROUP_KEYS);
  return ok(setRoutingKey(spec, "parallel_groups", { ...groupsOf(spec), [group]: changed }));
}

/** What each behaviour does, for messages. */
const DOES: Record<Behavior, string> = {
  route: "hands the work to one agent",
  terminate: "ends the run",
  pause: "waits for you",
  parallel: "starts a parallel group",
  broadcast: "sends the reply to several agents",
};

/** The edge's behaviour, or why it cannot be drawn. */
function edgeBehavior(
  spec: CrewSpec,
  signal: string,
  target: RuleTarget,
  asked: EdgeBehavior | undefined,
): Behavior | Refusal {
  switch (target.kind) {
    case "end":
      return "terminate";
    case "wait":
      return "pause";
    case "group":
      return asked === "broadcast" ? refuse("A broadcast goes to agents, not to a group") : "parallel";
    case "agent":
      if (asked === "parallel") return refuse("Only a group can be started in parallel; connect to the group instead");
      return asked ?? (registeredBehavior(spec, signal) === "broadcast" ? "broadcast" : "route");
  }
}

/** A registered signal fits an edge with the same behaviour; a route signal may
 * also start a group (the engine runs it). */
function fits(registered: Behavior, edge: Behavior): boolean {
  return registered === edge || (registered === "route" && edge === "parallel");
}

/** Why a strict registry's `signal` cannot be drawn from `from` to `target`. */
function registryProblem(
  spec: CrewSpec,
  signal: string,
  behavior: Behavior,
  from: string,
  target: RuleTarget,
): string | null {
  const registered = registeredBehavior(spec, signal);
  if (registered !== undefined && !fits(registered, behavior)) {
    return `'${signal}' ${DOES[registered]}, so it cannot lead ${toWords(target)}. Pick another signal.`;
  }
  const entry = declaredSignal(spec, signal);
  const allowed = entry?.allowed_agents ?? [];
  if (allowed.length > 0 && !allowed.includes(from)) {
    return `Only ${allowed.map((a) => `'${a}'`).join(", ")} may send '${signal}'; change that in the signal list first`;
  }
  const valid = entry?.valid_targets ?? [];
  const id = target.kind === "agent" || target.kind === "group" ? target.id : null;
  if (valid.length > 0 && id !== null && !valid.includes(id)) {
    return `'${signal}' may only lead to ${valid.map((v) => `'${v}'`).join(", ")}; change that in the signal list first`;
  }
  return null;
}

/** The first of the agent's rules on `signal` that is a broadcast. */
function broadcastRuleOf(spec: CrewSpec, agent: string, signal: string): number {
  return rulesOf(spec, agent).findIndex(
    (rule) =>
      rule.signal === signal &&
      (isStrict(spec) ? ruleBehavior(spec, rule) === "broadcast" : Array.isArray(rule.target)),
  );
}

function ruleTarget(target: RuleTarget, behavior: Behavior): string | string[] {
  if (target.kind === "end" || target.kind === "wait") return "";
  return behavior === "broadcast" ? [target.id] : target.id;
}

function leadsTo(rule: RuleSpec, target: RuleTarget): boolean {
  const targets = targetsOf(rule);
  if (target.kind === "end" || target.kind === "wait") return targets.length === 0;
  return targets.includes(target.id);
}

function sameTargets(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((t) => b.includes(t));
}

function toWords(target: RuleTarget): string {
  switch (target.kind) {
    case "end":
      return "to End";
    case "wait":
      return "to Wait";
    case "group":
      return `to the group '${target.id}'`;
    case "agent":
      return `to '${target.id}'`;
  }
}
