// The signal registry panel: every signal the crew knows (declared, built in, or
// implied by its rules) with the rules using it, and adding, editing, renaming,
// deprecating and deleting signals.
//
// Editing a built-in or implicit signal needs a registry entry, and in a crew
// without a `signals:` section the first entry makes the registry strict: every
// other signal of the rules would then be "not registered". So those operations
// first register every signal the rules use, with its implied behaviour
// (`promoteRegistry`), and only then write the entry asked for.
import type { Behavior } from "../bindings/Behavior";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ProblemView } from "../bindings/ProblemView";
import type { SignalOrigin } from "../bindings/SignalOrigin";
import type { SignalSpec } from "../bindings/SignalSpec";
import type { SignalCheck } from "./edges";
import { CREW_KEYS, SIGNAL_KEYS, list, setKey, text } from "./keys";
import {
  BUILTIN_SIGNALS,
  DEFAULT_PRIORITY,
  addEntry,
  builtinSignal,
  declaredSignal,
  isStrict,
  parseBehavior,
  promoteRegistry,
  replaceEntry,
  signalsInRules,
} from "./registry";
import { type EditResult, type Refusal, ok, refuse } from "./result";
import { mapRules, routingOf } from "./routing";

/** One rule naming a signal: whose, which (its place in the agent's rules), where to. */
export type SignalUse = { agent: string; index: number; target: string | string[] | null };

/** A signal as the registry panel lists it. */
export type SignalRow = {
  name: string;
  /** "unregistered": named by a rule of a strict crew without being registered (an error). */
  origin: SignalOrigin | "unregistered";
  behavior: Behavior;
  description: string;
  pattern: string | null;
  allowed_agents: string[];
  valid_targets: string[];
  priority: number;
  /** Why it is deprecated, or null. */
  deprecated: string | null;
  /** A declared or implicit signal with a built-in signal's name, which it replaces. */
  overrides_builtin: boolean;
  uses: SignalUse[];
  /** The engine's problems about this signal (from the document given to `listSignals`). */
  problems: ProblemView[];
};

/** What the registry panel may change on a signal (`renameSignal` changes its name). */
export type SignalPatch = Omit<Partial<SignalSpec>, "name">;

/** Refused because rules still use the signal; `uses` lists them. */
export type InUse = Refusal & { uses: SignalUse[] };

/** Every rule naming `name`, in file order. */
export function signalUses(spec: CrewSpec, name: string): SignalUse[] {
  const uses: SignalUse[] = [];
  for (const [agent, rules] of Object.entries(routingOf(spec).signals ?? {})) {
    rules.forEach((rule, index) => {
      if (rule.signal === name) uses.push({ agent, index, target: rule.target ?? null });
    });
  }
  return uses;
}

/**
 * The crew's signals as the engine registers them, each with its uses: a strict
 * crew's entries in file order, then signals its rules name without registering
 * them; an implicit crew's signals in the order its rules name them. Built-in
 * signals no entry or rule replaces come last. With the engine's `doc`, each row
 * carries the problems about it.
 */
export function listSignals(spec: CrewSpec, doc?: CrewDocument | null): SignalRow[] {
  const rows: SignalRow[] = [];
  const seen = new Set<string>();
  const push = (row: Omit<SignalRow, "uses" | "problems" | "overrides_builtin">) => {
    if (seen.has(row.name)) return;
    seen.add(row.name);
    const problems = (doc?.problems ?? []).filter(
      (p) => p.diagnostic.subject.kind === "signal" && p.diagnostic.subject.signal === row.name,
    );
    const overrides = row.origin !== "builtin" && builtinSignal(row.name) !== undefined;
    rows.push({ ...row, overrides_builtin: overrides, uses: signalUses(spec, row.name), problems });
  };
  if (isStrict(spec)) {
    for (const entry of spec.signals ?? []) {
      if (entry.name) push(declaredRow(entry));
    }
  }
  for (const used of signalsInRules(spec)) {
    const builtin = builtinSignal(used.name);
    if (isStrict(spec) && builtin) continue;
    push({
      ...blankRow(used.name, used.behavior),
      origin: isStrict(spec) ? "unregistered" : "implicit",
      description: used.description ?? "",
    });
  }
  for (const builtin of BUILTIN_SIGNALS) {
    const { description, priority } = builtin;
    push({ ...blankRow(builtin.name, builtin.behavior), origin: "builtin", description, priority });
  }
  return rows;
}

/** Declares a new signal. A built-in or already used name is edited instead. */
export function addSignal(spec: CrewSpec, entry: SignalSpec, options: { checkSignal?: SignalCheck } = {}): EditResult {
  const name = entry.name?.trim() ?? "";
  if (name === "") return refuse("Every signal needs a name");
  const formatError = options.checkSignal?.(name);
  if (formatError) return refuse(formatError);
  if (known(spec, name)) return refuse(`There is already a signal called '${name}'`);
  const cleaned = cleanEntry({ ...entry, name, behavior: entry.behavior ?? "route" });
  return ok(addEntry(promoteRegistry(spec), cleaned));
}

/** Changes a signal's entry. A built-in signal gets an entry of its own (starting
 * from the built-in's behaviour, description and priority); an implicit one is
 * registered with the others first (see the top of this file); one that a strict
 * crew's rules use without registering it is registered with its implied behaviour. */
export function updateSignal(spec: CrewSpec, name: string, patch: SignalPatch): EditResult {
  if (!known(spec, name)) return refuse(`There is no signal called '${name}'`);
  const strict = promoteRegistry(spec);
  if (declaredSignal(strict, name)) {
    return ok(replaceEntry(strict, name, (entry) => patchEntry(entry, patch)));
  }
  // A built-in keeps its meaning; a signal rules name without registering it
  // takes the behaviour its first rule implies.
  const used = signalsInRules(strict).find((s) => s.name === name);
  const base: SignalSpec = builtinSignal(name)
    ? { name, ...builtinEntry(name) }
    : { name, behavior: used?.behavior ?? "route" };
  return ok(addEntry(strict, patchEntry(base, patch)));
}

/** Renames a signal; the rules using it follow. A built-in signal used by rules is
 * registered under the new name with the built-in's meaning; an unused one keeps
 * its name. */
export function renameSignal(
  spec: CrewSpec,
  from: string,
  to: string,
  options: { checkSignal?: SignalCheck } = {},
): EditResult {
  const name = to.trim();
  if (!known(spec, from)) return refuse(`There is no signal called '${from}'`);
  if (name === from) return ok(spec);
  if (name === "") return refuse("Every signal needs a name");
  const formatError = options.checkSignal?.(name);
  if (formatError) return refuse(formatError);
  if (known(spec, name)) return refuse(`There is already a signal called '${name}'`);
  const used = signalUses(spec, from).length > 0;
  const declared = declaredSignal(spec, from);
  if (!declared && !used) return refuse(`Built-in signals keep their names; add a new signal instead`);
  let next = mapRules(spec, (rule) => (rule.signal === from ? { ...rule, signal: name } : rule));
  if (declared) {
    next = replaceEntry(next, from, (entry) => ({ ...entry, name }));
  } else if (isStrict(spec) && builtinSignal(from)) {
    next = addEntry(next, { name, ...builtinEntry(from) });
  }
  return ok(next);
}

/** Marks a signal deprecated with a note saying what to use instead; an empty note
 * clears the mark. (The engine reads an empty `deprecated:` as deprecated, so
 * clearing removes the key.) */
export function deprecateSignal(spec: CrewSpec, name: string, message: string): EditResult {
  const note = message.trim();
  if (note !== "") return updateSignal(spec, name, { deprecated: note });
  if (!known(spec, name)) return refuse(`There is no signal called '${name}'`);
  return ok(replaceEntry(spec, name, (entry) => setKey(entry, "deprecated", undefined, SIGNAL_KEYS)));
}

/** Deletes a declared signal, refused while rules use it (the refusal lists them).
 * A strict registry left without entries stays strict (`signals: []`). */
export function deleteSignal(spec: CrewSpec, name: string): EditResult | InUse {
  const uses = signalUses(spec, name);
  if (uses.length > 0) {
    const count = uses.length === 1 ? "1 connection" : `${uses.length} connections`;
    return { ok: false, error: `'${name}' is used by ${count}; remove or change them first`, uses };
  }
  if (!declaredSignal(spec, name)) {
    return refuse(builtinSignal(name) ? `'${name}' is built in and cannot be deleted` : `There is no signal called '${name}'`);
  }
  return ok(setKey(spec, "signals", (spec.signals ?? []).filter((s) => s.name !== name), CREW_KEYS));
}

/** True when the crew already knows `name`: declared, built in, or named by a rule. */
function known(spec: CrewSpec, name: string): boolean {
  return declaredSignal(spec, name) !== undefined || builtinSignal(name) !== undefined || signalUses(spec, name).length > 0;
}

function patchEntry(entry: SignalSpec, patch: SignalPatch): SignalSpec {
  let next = entry;
  for (const key of Object.keys(patch) as (keyof SignalPatch)[]) {
    if ((key as string) === "name") continue;
    next = setKey(next, key, cleanValue(patch[key]), SIGNAL_KEYS);
  }
  return next;
}

/** An entry in key order without empty text or lists. */
function cleanEntry(entry: SignalSpec): SignalSpec {
  return patchEntry({ name: entry.name }, { ...entry });
}

/** A value as stored: blank text and empty lists are not written. */
function cleanValue<K extends keyof SignalSpec>(value: SignalSpec[K]): SignalSpec[K] | undefined {
  if (typeof value === "string") return text(value.trim() === "" ? "" : value) as SignalSpec[K] | undefined;
  if (Array.isArray(value)) return list(value) as SignalSpec[K] | undefined;
  return value;
}

/** The entry that keeps a built-in signal's meaning. */
function builtinEntry(name: string): Omit<SignalSpec, "name"> {
  const builtin = builtinSignal(name);
  if (!builtin) return {};
  const entry: Omit<SignalSpec, "name"> = { behavior: builtin.behavior, description: builtin.description };
  return builtin.priority === DEFAULT_PRIORITY ? entry : { ...entry, priority: builtin.priority };
}

function declaredRow(entry: SignalSpec): Omit<SignalRow, "uses" | "problems" | "overrides_builtin"> {
  const deprecated = entry.deprecated === undefined ? null : entry.deprecated.trim() || "no longer in use";
  return {
    name: entry.name ?? "",
    origin: "declared",
    behavior: parseBehavior(entry.behavior),
    description: entry.description ?? "",
    pattern: entry.pattern ?? null,
    allowed_agents: entry.allowed_agents ?? [],
    valid_targets: entry.valid_targets ?? [],
    priority: entry.priority ?? DEFAULT_PRIORITY,
    deprecated,
  };
}

function blankRow(name: string, behavior: Behavior): Omit<SignalRow, "uses" | "problems" | "overrides_builtin"> {
  return {
    name,
    origin: "implicit",
    behavior,
    description: "",
    pattern: null,
    allowed_agents: [],
    valid_targets: [],
    priority: DEFAULT_PRIORITY,
    deprecated: null,
  };
}
