// Forking a run from one of its turns (issue 18, item 3): which turn's "Try another
// reply" is open — the run, the agent, its reply and the seq of that reply's
// `agent_response` event, which is what the backend is asked to fork at. The
// transcript's turns open it (ForkButton.tsx) once the run is over or replayed;
// components/run/ForkDialog.tsx shows it. Also here: which turns can be forked.
//
//   const at = replySeq(events, turn);      // null: its reply is not stored (yet)
//   openFork({ runId, agent: turn.agent, reply: turn.text, at });
//   const open = useFork();                 // null: none open
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { RunEvent } from "../bindings/RunEvent";
import type { Turn } from "./reducer";

/** The turn whose "Try another reply" is open. */
export type ForkTurn = {
  runId: string;
  agent: string;
  /** Its reply as the run stored it. */
  reply: string;
  /** The seq of that reply's `agent_response`. */
  at: number;
  /** The crew the run belongs to (its path), to run the fork on and to offer its script. */
  crew: string | null;
};

type ForkState = { open: ForkTurn | null; opener: Element | null };

export const forkStore = createStore<ForkState>()(() => ({ open: null, opener: null }));

export function openFork(turn: ForkTurn): void {
  const opener = typeof document === "undefined" ? null : document.activeElement;
  forkStore.setState({ open: turn, opener });
}

/** Closes it; the focus goes back to the button that opened it. */
export function closeFork(): void {
  const { open, opener } = forkStore.getState();
  if (!open) return;
  forkStore.setState({ open: null, opener: null });
  if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
}

export function useFork(): ForkTurn | null {
  return useStore(forkStore, (s) => s.open);
}

/** The seq of the `agent_response` that ended `turn` (its agent's first reply after
 * the turn began); null when none is stored (a turn still at work, or stopped). */
export function replySeq(events: readonly RunEvent[], turn: Pick<Turn, "id" | "agent">): number | null {
  const reply = events.find((e) => e.seq > turn.id && e.type === "agent_response" && e.agent === turn.agent);
  return reply ? reply.seq : null;
}

/** Whether a turn can be forked: its reply is whole and the run is over (or
 * replayed) and in the store — not a recording file's, which may not be. */
export function canFork(turn: Pick<Turn, "state" | "final">, run: { over: boolean; imported: boolean }): boolean {
  return run.over && !run.imported && turn.final && turn.state === "done";
}

/** The reply without the signal it ends with, when it ends with one of `signals`
 * (so a signal chosen replaces it rather than following it). */
export function withoutEndSignal(reply: string, signals: readonly string[]): string {
  const kept = reply.trimEnd();
  const last = signals.filter((s) => kept.endsWith(s)).sort((a, b) => b.length - a.length)[0];
  return last ? kept.slice(0, kept.length - last.length).trimEnd() : reply;
}

/** A refused fork in the window's words: the backend's sentence, and whether it can
 * be forked on the version of the crew it ran (its file changed since) — then the
 * command-line advice is left to the button ("Run it on the version it ran"). */
export function forkRefusal(message: string): { text: string; onRevision: boolean } {
  const offer = /: fork it on the version it ran \(revision (\d+)\).*$/s.exec(message);
  const text = offer ? `${message.slice(0, offer.index)}. The version it ran is kept as revision ${offer[1]}.` : message;
  return { text: sentence(text), onRevision: offer !== null };
}

/** Capitalised, with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.?!]$/.test(capital) ? capital : `${capital}.`;
}
