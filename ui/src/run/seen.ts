// What an agent saw (issue 18, item 2): which turn's "What Teacher saw" is open —
// the run, the turn (its id in the run view), its step and agent, which is what the
// backend is asked (`stepContext`). Any part of the window opens it: a turn of the
// transcript, a line of the tracker (the turn that led to the move), an agent's card
// once the run is over (its latest turn); components/run/SeenView.tsx shows it.
// Also here: finding a turn by id, and which turns have a context to show.
//
//   openSeen("run-1", turn);       // from a button
//   const open = useSeen();        // null: none open
//   closeSeen();
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { RunView, Turn } from "./reducer";

/** The turn whose "What … saw" is open. */
export type SeenTurn = {
  runId: string;
  /** The turn's id in the run view (the seq of its `agent_started`). */
  turn: number;
  step: number;
  agent: string;
  /** The turn as it was when opened: shown while the run view has it no more (a
   * replay stepped back before it). */
  snapshot: Turn;
};

type SeenState = {
  open: SeenTurn | null;
  /** What had the focus when the view opened (the button pressed): it gets it back. */
  opener: Element | null;
};

export const seenStore = createStore<SeenState>()(() => ({ open: null, opener: null }));

/** Opens "What … saw" for `turn` of run `runId` (another turn, when one is open). */
export function openSeen(runId: string, turn: Turn): void {
  const { open, opener } = seenStore.getState();
  const focused = open ? opener : typeof document === "undefined" ? null : document.activeElement;
  seenStore.setState({ open: { runId, turn: turn.id, step: turn.step, agent: turn.agent, snapshot: turn }, opener: focused });
}

/** Closes it; the focus goes back where it was when it opened. */
export function closeSeen(): void {
  const { open, opener } = seenStore.getState();
  if (!open) return;
  seenStore.setState({ open: null, opener: null });
  if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
}

/** The turn whose view is open (null: none), for a component. */
export function useSeen(): SeenTurn | null {
  return useStore(seenStore, (s) => s.open);
}

/** Whether a turn has a context to show: its model was asked and the turn is over
 * (a context is stored with its step; a turn still at work has none yet). */
export function hasContext(turn: Turn): boolean {
  return turn.state !== "working";
}

/** The turn with id `id` (turns are in the order they began, so by id: a binary
 * search, cheap enough for every line of a long tracker). */
export function turnById(view: RunView | null, id: number | null): Turn | null {
  if (!view || id === null) return null;
  const { turns } = view;
  let low = 0;
  let high = turns.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = turns[middle].id;
    if (at === id) return turns[middle];
    if (at < id) low = middle + 1;
    else high = middle - 1;
  }
  return null;
}
