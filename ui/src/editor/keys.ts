// Objects that become YAML keep a sensible key order: an existing key stays where
// it is, a new key goes where it belongs in the canonical order of its object, and
// a key whose value becomes undefined is dropped. Nothing here mutates its input.
import type { AgentSpec } from "../bindings/AgentSpec";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { GroupSpec } from "../bindings/GroupSpec";
import type { RoutingSpec } from "../bindings/RoutingSpec";
import type { RuleSpec } from "../bindings/RuleSpec";
import type { SignalSpec } from "../bindings/SignalSpec";

export const CREW_KEYS: readonly (keyof CrewSpec)[] = [
  "version",
  "name",
  "description",
  "entry_point",
  "max_handoffs",
  "max_tool_rounds",
  "agents",
  "signals",
  "routing",
  "settings",
  "tools",
];

export const AGENT_KEYS: readonly (keyof AgentSpec)[] = [
  "id",
  "name",
  "role",
  "description",
  "objective",
  "backstory",
  "tags",
  "system_prompt",
  "model",
  "provider",
  "provider_url",
  "primary",
  "backup",
  "temperature",
  "tools",
  "handoff_targets",
  "is_terminal",
  "wait_for_signal",
  "context_budget",
  "max_tokens",
];

export const ROUTING_KEYS: readonly (keyof RoutingSpec)[] = [
  "strategy",
  "signals",
  "defaults",
  "agent_behaviors",
  "parallel_groups",
  "on_no_signal",
  "on_loop",
  "finalizer",
  "max_iterations",
  "router",
  "gatekeeper",
];

export const GROUP_KEYS: readonly (keyof GroupSpec)[] = [
  "agents",
  "timeout",
  "timeout_seconds",
  "wait_for_all",
  "next_agent",
  "description",
];

export const SIGNAL_KEYS: readonly (keyof SignalSpec)[] = [
  "name",
  "pattern",
  "behavior",
  "description",
  "allowed_agents",
  "valid_targets",
  "priority",
  "deprecated",
  "aliases",
];

export const RULE_KEYS: readonly (keyof RuleSpec)[] = ["signal", "target", "description", "aliases"];

/** `obj` with `key` set to `value` (or removed when `value` is undefined). An
 * existing key keeps its place; a new one is put before the first present key that
 * comes after it in `order` (keys `order` does not name count as coming last). */
export function setKey<T extends object, K extends keyof T>(
  obj: T,
  key: K,
  value: T[K] | undefined,
  order: readonly (keyof T)[],
): T {
  const entries = Object.entries(obj) as [keyof T, unknown][];
  const at = entries.findIndex(([k]) => k === key);
  if (value === undefined) {
    return at < 0 ? obj : fromEntries(entries.filter(([k]) => k !== key));
  }
  if (at >= 0) {
    if (entries[at][1] === value) return obj;
    return fromEntries(entries.map(([k, v]) => [k, k === key ? value : v]));
  }
  const rank = (k: keyof T) => {
    const index = order.indexOf(k);
    return index < 0 ? order.length : index;
  };
  const before = entries.findIndex(([k]) => rank(k) > rank(key));
  const next: [keyof T, unknown][] = [...entries];
  next.splice(before < 0 ? entries.length : before, 0, [key, value]);
  return fromEntries(next);
}

/** A text field's value as it is stored: an empty string means "not set". */
export function text(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/** A list field's value as it is stored: an empty list means "not set". */
export function list<T>(value: T[] | undefined): T[] | undefined {
  return value && value.length > 0 ? value : undefined;
}

/** A record with one key renamed in place (same position), or the same record. */
export function renameKey<V>(record: Record<string, V>, from: string, to: string): Record<string, V> {
  if (!(from in record) || from === to) return record;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k === from ? to : k, v]));
}

/** A record without some keys, or the same record when none of them is there. */
export function withoutKeys<V>(record: Record<string, V>, keys: ReadonlySet<string>): Record<string, V> {
  const entries = Object.entries(record);
  const kept = entries.filter(([k]) => !keys.has(k));
  return kept.length === entries.length ? record : Object.fromEntries(kept);
}

/** A list mapped item by item, or the same list when no item changed. */
export function mapList<T>(items: T[], fn: (item: T) => T): T[] {
  let changed = false;
  const out = items.map((item) => {
    const next = fn(item);
    if (next !== item) changed = true;
    return next;
  });
  return changed ? out : items;
}

/** A record mapped value by value, or the same record when no value changed. */
export function mapValues<V>(record: Record<string, V>, fn: (value: V, key: string) => V): Record<string, V> {
  let changed = false;
  const out = Object.fromEntries(
    Object.entries(record).map(([k, v]) => {
      const next = fn(v, k);
      if (next !== v) changed = true;
      return [k, next];
    }),
  );
  return changed ? out : record;
}

function fromEntries<T>(entries: [keyof T, unknown][]): T {
  return Object.fromEntries(entries) as T;
}
