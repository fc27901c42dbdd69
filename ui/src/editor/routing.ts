// Reading and rewriting a crew's `routing:` section and its agents' and groups'
// ids. Containers an edit empties (an agent's rule list, `routing.signals`,
// `parallel_groups`, `routing` itself) are removed; those it does not touch stay.
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GroupSpec } from "../bindings/GroupSpec";
import type { RoutingSpec } from "../bindings/RoutingSpec";
import type { RuleSpec } from "../bindings/RuleSpec";
import { CREW_KEYS, ROUTING_KEYS, setKey, withoutKeys } from "./keys";

export function routingOf(spec: CrewSpec): RoutingSpec {
  return spec.routing ?? {};
}

/** `spec` with one key of `routing` set; a record left without entries, or
 * undefined, removes the key, and a `routing` left without keys goes too. */
export function setRoutingKey<K extends keyof RoutingSpec>(
  spec: CrewSpec,
  key: K,
  value: RoutingSpec[K] | undefined,
): CrewSpec {
  const current = routingOf(spec);
  const empty = value !== undefined && value !== null && typeof value === "object" && Object.keys(value).length === 0;
  const routing = setKey(current, key, empty ? undefined : value, ROUTING_KEYS);
  if (routing === current) return spec;
  return setKey(spec, "routing", Object.keys(routing).length > 0 ? routing : undefined, CREW_KEYS);
}

export function hasAgent(spec: CrewSpec, id: string): boolean {
  return spec.agents.some((a) => a.id === id);
}

export function groupsOf(spec: CrewSpec): Record<string, GroupSpec> {
  return routingOf(spec).parallel_groups ?? {};
}

export function hasGroup(spec: CrewSpec, id: string): boolean {
  return Object.hasOwn(groupsOf(spec), id);
}

/** An agent's routing rules, in file order (empty when it has none). */
export function rulesOf(spec: CrewSpec, agent: string): RuleSpec[] {
  const all = routingOf(spec).signals ?? {};
  return Object.hasOwn(all, agent) ? all[agent] : [];
}

/** `spec` with an agent's rules replaced; an empty list removes the agent's entry. */
export function setRules(spec: CrewSpec, agent: string, rules: RuleSpec[]): CrewSpec {
  const all = routingOf(spec).signals ?? {};
  if (rules.length === 0) {
    if (!Object.hasOwn(all, agent)) return spec;
    return setRoutingKey(spec, "signals", withoutKeys(all, new Set([agent])));
  }
  return setRoutingKey(spec, "signals", { ...all, [agent]: rules });
}

/** Rewrites every rule: return the rule, a changed copy, or null to remove it.
 * Rule lists that were not changed keep their identity. */
export function mapRules(
  spec: CrewSpec,
  fn: (rule: RuleSpec, agent: string, index: number) => RuleSpec | null,
): CrewSpec {
  const all = routingOf(spec).signals;
  if (!all) return spec;
  let changed = false;
  const next: Record<string, RuleSpec[]> = {};
  for (const [agent, rules] of Object.entries(all)) {
    const mapped = rules.map((rule, index) => fn(rule, agent, index));
    const same = mapped.length === rules.length && mapped.every((rule, i) => rule === rules[i]);
    if (same) {
      next[agent] = rules;
      continue;
    }
    changed = true;
    const kept = mapped.filter((rule): rule is RuleSpec => rule !== null);
    if (kept.length > 0) next[agent] = kept;
  }
  return changed ? setRoutingKey(spec, "signals", next) : spec;
}

/** A rule's targets as a list: `""`, `null` and a missing target are none. */
export function targetsOf(rule: RuleSpec): string[] {
  const target = rule.target;
  if (target === undefined || target === null) return [];
  if (typeof target === "string") return target === "" ? [] : [target];
  return target.filter((t) => t !== "");
}

/** A rule whose targets are rewritten by `fn` (return the new id, or null to drop
 * that target). A single target dropped, or a list left empty, removes the rule
 * (null); a list stays a list. Unchanged rules keep their identity. */
export function mapTargets(rule: RuleSpec, fn: (target: string) => string | null): RuleSpec | null {
  const target = rule.target;
  if (typeof target === "string") {
    if (target === "") return rule;
    const next = fn(target);
    if (next === target) return rule;
    return next === null ? null : { ...rule, target: next };
  }
  if (Array.isArray(target)) {
    const next = target.map((t) => (t === "" ? t : fn(t)));
    if (next.every((t, i) => t === target[i])) return rule;
    const kept = next.filter((t): t is string => t !== null);
    return kept.length === 0 ? null : { ...rule, target: kept };
  }
  return rule;
}
