// The two fixes the window offers when an agent's reply came close to one of its
// signals without matching (`route_missed`, see run/nearMiss.ts), each a pure edit
// of the crew, made through the editor store as one undo step:
//
// - **accept the spelling**: the reply's `[QUESTON]` becomes an alias of
//   `[QUESTION]` — on the signal's `signals:` entry in a crew that has that section
//   (a built-in signal gets an entry of its own first, keeping its meaning: the
//   engine reads a rule's aliases only for a registered entry or, in a crew without
//   `signals:`, for the signal the rules imply), else on the agent's rules for that
//   signal. Matching accepts an alias at the same levels as the name.
// - **remind the agent**: one plain sentence at the end of its instructions,
//   listing its signals as they must be written; written once (a reminder written
//   earlier for other signals is replaced).
//
//     editorStore.getState().edit("Accept [QUESTON] as [QUESTION]", (s) => acceptSpelling(s, "student", miss));
import type { CrewSpec } from "../bindings/CrewSpec";
import type { NearMiss } from "../bindings/NearMiss";
import { updateAgent } from "./agents";
import { RULE_KEYS, setKey } from "./keys";
import { declaredSignal, isStrict } from "./registry";
import { type EditResult, ok, refuse } from "./result";
import { mapRules, routingOf, rulesOf } from "./routing";
import { listSignals, updateSignal } from "./signals";

/** A bracket signal's name as the engine accepts one (`signal/name.rs`): `[`, one or
 * more letters of any script (with their marks), digits, `_`, `-` or spaces, `]`. */
export function isBracketName(name: string): boolean {
  return /^\[[\p{L}\p{M}\p{N}_\- ]+\]$/u.test(name);
}

/** A name as the engine compares signals (its third matching level): the inside of
 * the brackets, NFC, lower case, each run of spaces, `_` or `-` one space, trimmed. */
export function normalizedName(name: string): string {
  const inner = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
  return inner.normalize("NFC").toLowerCase().replace(/[\s_-]+/gu, " ").trim();
}

/** Whether the spelling the reply has may become an alias: a misspelt signal
 * written as a bracket name. (Words without brackets are no signal's spelling.) */
export function canAccept(miss: NearMiss): boolean {
  return miss.kind === "misspelt" && isBracketName(miss.found);
}

/** Every alias the crew gives `signal`: its entry's, then its rules'. */
export function aliasesOf(spec: CrewSpec, signal: string): string[] {
  const aliases = [...(declaredSignal(spec, signal)?.aliases ?? [])];
  for (const rules of Object.values(routingOf(spec).signals ?? {})) {
    for (const rule of rules) if (rule.signal === signal) aliases.push(...(rule.aliases ?? []));
  }
  return aliases;
}

/** True when the reply's spelling already counts as the signal (one of its aliases,
 * the same after normalization). */
export function isAccepted(spec: CrewSpec, miss: NearMiss): boolean {
  const key = normalizedName(miss.found);
  return aliasesOf(spec, miss.signal).some((alias) => normalizedName(alias) === key);
}

/** Adds the reply's spelling as an alias of the signal it came close to (see the
 * top of this file for where). Already an alias: the crew as it is. */
export function acceptSpelling(spec: CrewSpec, agent: string, miss: NearMiss): EditResult {
  const { found, signal } = miss;
  if (!canAccept(miss)) return refuse(`${found} cannot be another spelling of ${signal}: only a name in square brackets can`);
  if (isAccepted(spec, miss)) return ok(spec);
  const key = normalizedName(found);
  const means = (name: string) => name !== signal && [name, ...aliasesOf(spec, name)].some((other) => normalizedName(other) === key);
  const taken = listSignals(spec).find((row) => means(row.name))?.name;
  if (taken) return refuse(`${found} already means ${taken}`);
  if (isStrict(spec)) {
    const aliases = declaredSignal(spec, signal)?.aliases ?? [];
    return updateSignal(spec, signal, { aliases: [...aliases, found] });
  }
  if (!rulesOf(spec, agent).some((rule) => rule.signal === signal)) return refuse(`No arrow of ${agent} uses ${signal}`);
  return ok(
    mapRules(spec, (rule, owner) =>
      owner === agent && rule.signal === signal ? setKey(rule, "aliases", [...(rule.aliases ?? []), found], RULE_KEYS) : rule,
    ),
  );
}

/** The two fixes. */
export type NearMissFix = "accept" | "remind";

/** The fix offered first (the one under the card): accepting the spelling when it
 * can be, else the reminder. */
export function firstFix(miss: NearMiss): NearMissFix {
  return canAccept(miss) ? "accept" : "remind";
}

/** True when the crew already has the fix: the spelling is an alias, or the agent's
 * instructions hold the reminder. */
export function isFixed(spec: CrewSpec, agent: string, miss: NearMiss, fix: NearMissFix): boolean {
  return fix === "accept" ? canAccept(miss) && isAccepted(spec, miss) : isReminded(spec, agent);
}

/** The signals the agent's rules name in square brackets, once each, in order. */
export function signalsToRemind(spec: CrewSpec, agent: string): string[] {
  const names: string[] = [];
  for (const rule of rulesOf(spec, agent)) {
    const name = rule.signal ?? "";
    if (isBracketName(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

/** The sentence that reminds an agent of its signals: "End every reply with exactly
 * one of these signals, written exactly as shown, in square brackets: [QUESTION],
 * [READY]." */
export function reminderSentence(signals: readonly string[]): string {
  return signals.length === 1
    ? `End every reply with this signal, written exactly as shown, in square brackets: ${signals[0]}.`
    : `End every reply with exactly one of these signals, written exactly as shown, in square brackets: ${signals.join(", ")}.`;
}

/** A reminder written earlier (perhaps for other signals), a line of its own. */
const EARLIER = /^End every reply with (?:exactly one of these signals|this signal), written exactly as shown, in square brackets: .*$/mu;

/** True when the agent's instructions hold the reminder of its signals as they are now. */
export function isReminded(spec: CrewSpec, agent: string): boolean {
  const signals = signalsToRemind(spec, agent);
  const prompt = spec.agents.find((a) => a.id === agent)?.system_prompt ?? "";
  return signals.length > 0 && prompt.includes(reminderSentence(signals));
}

/** Ends the agent's instructions with the reminder of its signals; a reminder
 * written earlier is replaced, the same one is not written twice. */
export function remindOfSignals(spec: CrewSpec, agent: string): EditResult {
  const found = spec.agents.find((a) => a.id === agent);
  if (!found) return refuse(`There is no agent called '${agent}' in the crew's file`);
  const signals = signalsToRemind(spec, agent);
  if (signals.length === 0) return refuse(`${found.name ?? agent} has no signal in square brackets to be reminded of`);
  if (isReminded(spec, agent)) return ok(spec);
  const sentence = reminderSentence(signals);
  const prompt = found.system_prompt ?? "";
  const base = prompt.trimEnd();
  const next = EARLIER.test(prompt) ? prompt.replace(EARLIER, sentence) : base === "" ? `${sentence}\n` : `${base}\n\n${sentence}\n`;
  return updateAgent(spec, agent, { system_prompt: next });
}
