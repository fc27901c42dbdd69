// Why a reply did not route, in words (issue 18): the engine's `route_missed` event
// ranks what came close to one of the agent's signals (`Turn.missed`, best first),
// and the window says the best of it after the agent's name — "Student wrote
// [QUESTON] — did you mean [QUESTION]?" — on its card, in the tracker at its place
// among the moves, and under its turn in the transcript; the fixes' labels and
// what they say once made. Pure: names come from the caller.
//
//     missWords({ signal: "[QUESTION]", found: "[QUESTON]", kind: "misspelt", distance: 1 }, "Student")
//     // "Student wrote [QUESTON] — did you mean [QUESTION]?"
import type { NearMiss } from "../bindings/NearMiss";
import type { Handoff, Turn } from "./reducer";

/** What the agent wrote and what it came close to, after its name. */
export function missWords(miss: NearMiss, name: string): string {
  const { found, signal } = miss;
  switch (miss.kind) {
    case "misspelt":
      return `${name} wrote ${found} — did you mean ${signal}?`;
    case "no_brackets":
      return `${name} wrote ${found} without brackets — the signal is ${signal}`;
    case "not_this_agents":
      return `${name} wrote ${found}, but none of its arrows uses ${signal}`;
    case "not_allowed":
      return `${name} wrote ${found}, but it may not send ${signal}`;
  }
}

/** The rest of what came close, shorter: "[QUESTON] for [QUESTIONS], ASK for [ASK]". */
export function alsoCloseWords(misses: readonly NearMiss[]): string {
  return misses.map((miss) => `${miss.found} for ${miss.signal}`).join(", ");
}

/** The fix that adds the spelling to the signal: "Accept [QUESTON] as [QUESTION]". */
export function acceptWords(miss: NearMiss): string {
  return `Accept ${miss.found} as ${miss.signal}`;
}

/** The fix that strengthens the agent's instructions: "Remind Student of its signals". */
export function remindWords(name: string): string {
  return `Remind ${name} of its signals`;
}

/** What the window says once the spelling is accepted. */
export function acceptedWords(miss: NearMiss): string {
  return `${miss.found} now counts as ${miss.signal}`;
}

/** What the window says once the agent is reminded. */
export function remindedWords(name: string): string {
  return `${name}'s instructions now end with a reminder of its signals`;
}

/** A line of the tracker: a move of the work, or a reply that did not route. */
export type TrackerEntry = { kind: "move"; seq: number; move: Handoff } | { kind: "missed"; seq: number; turn: Turn };

/**
 * The moves and the replies that did not route, in the order they happened. A
 * missed route stands at its turn: after the move that brought the work to the
 * agent (whose seq is at most the turn's, a group's "then" the same) and before the
 * move that followed its reply (a fallback, the End).
 */
export function trackerEntries(moves: readonly Handoff[], missed: readonly Turn[]): TrackerEntry[] {
  const entries: TrackerEntry[] = moves.map((move) => ({ kind: "move", seq: move.seq, move }));
  if (missed.length === 0) return entries;
  for (const turn of missed) entries.push({ kind: "missed", seq: turn.id, turn });
  const rank = (entry: TrackerEntry) => (entry.kind === "move" ? 0 : 1);
  return entries.sort((a, b) => a.seq - b.seq || rank(a) - rank(b));
}

/** The turns whose reply did not route and came close to a signal. */
export function missedTurns(turns: readonly Turn[]): Turn[] {
  return turns.filter((turn) => turn.missed.length > 0);
}

/** When the turn's reply came (its start and its time); its start when not known. */
export function replyTime(turn: Turn): string {
  const started = Date.parse(turn.startedAt);
  if (Number.isNaN(started) || turn.latencyMs === null) return turn.startedAt;
  return new Date(started + turn.latencyMs).toISOString();
}
