// The crew's signal registry as the engine builds it (DESIGN.md §3): the built-in
// signals, a strict registry (`signals:` present) or an implicit one (each signal
// of the rules registered with the behaviour its rule implies), and the one way
// from implicit to strict that changes nothing a rule does.
import type { Behavior } from "../bindings/Behavior";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { RuleSpec } from "../bindings/RuleSpec";
import type { SignalSpec } from "../bindings/SignalSpec";
import { CREW_KEYS, SIGNAL_KEYS, setKey } from "./keys";
import { hasGroup, routingOf, targetsOf } from "./routing";

export type BuiltinSignal = { name: string; behavior: Behavior; description: string; priority: number };

/** The engine's built-in signals, in its order (`signal/registry.rs`). */
export const BUILTIN_SIGNALS: readonly BuiltinSignal[] = [
  { name: "[END]", behavior: "terminate", description: "The work is finished", priority: 100 },
  { name: "[END_EXAM]", behavior: "terminate", description: "The exam is over", priority: 100 },
  { name: "[DONE]", behavior: "terminate", description: "The task is complete", priority: 100 },
  { name: "[STOP]", behavior: "terminate", description: "Stop at once", priority: 110 },
  { name: "[NEXT]", behavior: "route", description: "Hand over to the next agent", priority: 50 },
  { name: "[QUESTION]", behavior: "route", description: "A question is ready", priority: 50 },
  { name: "[ANSWER]", behavior: "route", description: "An answer is ready", priority: 50 },
  { name: "[OK]", behavior: "route", description: "Status: acknowledged", priority: 40 },
  { name: "[ERROR]", behavior: "route", description: "Status: something went wrong", priority: 90 },
  { name: "[RETRY]", behavior: "route", description: "Status: try again", priority: 60 },
  { name: "[WAIT]", behavior: "pause", description: "Wait for the person's input", priority: 80 },
];

/** A declared signal's priority when it names none. */
export const DEFAULT_PRIORITY = 50;

const BEHAVIORS: readonly Behavior[] = ["route", "terminate", "pause", "parallel", "broadcast"];

export function builtinSignal(name: string): BuiltinSignal | undefined {
  return BUILTIN_SIGNALS.find((s) => s.name === name);
}

/** A crew with a `signals:` section (even an empty one) has a strict registry. */
export function isStrict(spec: CrewSpec): boolean {
  return spec.signals !== undefined;
}

export function declaredSignal(spec: CrewSpec, name: string): SignalSpec | undefined {
  return spec.signals?.find((s) => s.name === name);
}

/** A declared behaviour as the engine reads it: missing or unknown is `route`. */
export function parseBehavior(text: string | undefined): Behavior {
  const trimmed = text?.trim();
  return BEHAVIORS.find((b) => b === trimmed) ?? "route";
}

/** The behaviour a rule's target implies (an implicit registry's reading): none →
 * terminate, a group → parallel, several → broadcast, one agent → route. */
export function impliedBehavior(spec: CrewSpec, rule: RuleSpec): Behavior {
  const targets = targetsOf(rule);
  if (targets.length === 0) return "terminate";
  if (targets.length > 1) return "broadcast";
  return hasGroup(spec, targets[0]) ? "parallel" : "route";
}

/** The behaviour the registry gives `name`, or undefined when it is not registered.
 * Strict: its entry, else the built-in. Implicit: the first rule naming it, else
 * the built-in. */
export function registeredBehavior(spec: CrewSpec, name: string): Behavior | undefined {
  if (isStrict(spec)) {
    const declared = declaredSignal(spec, name);
    if (declared) return parseBehavior(declared.behavior);
  } else {
    const first = signalsInRules(spec).find((s) => s.name === name);
    if (first) return first.behavior;
  }
  return builtinSignal(name)?.behavior;
}

/** What a rule does as the engine reads it: the registry decides in a strict crew
 * (or for a pattern signal), the rule's target otherwise. */
export function ruleBehavior(spec: CrewSpec, rule: RuleSpec): Behavior {
  const name = rule.signal ?? "";
  const declared = declaredSignal(spec, name);
  if (isStrict(spec)) {
    if (declared) return parseBehavior(declared.behavior);
    const builtin = builtinSignal(name);
    if (builtin) return builtin.behavior;
  }
  return impliedBehavior(spec, rule);
}

/** Each signal the rules name, once, in file order, with the behaviour and the
 * description of the first rule naming it (as an implicit registry takes them). */
export function signalsInRules(spec: CrewSpec): { name: string; behavior: Behavior; description?: string }[] {
  const found = new Map<string, { name: string; behavior: Behavior; description?: string }>();
  for (const rules of Object.values(routingOf(spec).signals ?? {})) {
    for (const rule of rules) {
      const name = rule.signal ?? "";
      if (name === "" || found.has(name)) continue;
      const entry = { name, behavior: impliedBehavior(spec, rule) };
      found.set(name, rule.description ? { ...entry, description: rule.description } : entry);
    }
  }
  return [...found.values()];
}

/**
 * Makes the registry strict without changing what any rule does. In a crew without
 * a `signals:` section every signal of the rules is registered implicitly with the
 * behaviour its rule implies; the first entry written there would make the registry
 * strict, and every other signal of the rules would become "not registered" (or, for
 * a built-in one, take the built-in's behaviour). So every signal the rules use gets
 * an entry first, with its implied behaviour and the first rule's description.
 * (One case cannot be kept: a name whose rules imply different behaviours gets the
 * first rule's, and the engine then reports the others.) Strict crews are returned
 * as they are.
 */
export function promoteRegistry(spec: CrewSpec): CrewSpec {
  if (isStrict(spec)) return spec;
  const entries: SignalSpec[] = signalsInRules(spec).map(({ name, behavior, description }) =>
    description ? { name, behavior, description } : { name, behavior },
  );
  return setKey(spec, "signals", entries, CREW_KEYS);
}

/** `spec` with one more registry entry, written in the canonical key order. */
export function addEntry(spec: CrewSpec, entry: SignalSpec): CrewSpec {
  const ordered = Object.fromEntries(
    SIGNAL_KEYS.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]),
  ) as SignalSpec;
  return setKey(spec, "signals", [...(spec.signals ?? []), ordered], CREW_KEYS);
}

/** `spec` with the entry called `name` replaced by `fn`'s result. */
export function replaceEntry(spec: CrewSpec, name: string, fn: (entry: SignalSpec) => SignalSpec): CrewSpec {
  const signals = spec.signals ?? [];
  const at = signals.findIndex((s) => s.name === name);
  if (at < 0) return spec;
  const next = fn(signals[at]);
  if (next === signals[at]) return spec;
  return { ...spec, signals: signals.map((s, i) => (i === at ? next : s)) };
}

/** In a strict crew, registers `name` with `behavior` unless it is declared or built
 * in. Implicit crews need no entry: the rule itself registers the signal. */
export function ensureRegistered(spec: CrewSpec, name: string, behavior: Behavior): CrewSpec {
  if (!isStrict(spec) || declaredSignal(spec, name) || builtinSignal(name)) return spec;
  return addEntry(spec, { name, behavior });
}
