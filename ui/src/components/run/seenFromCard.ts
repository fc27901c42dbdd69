// An agent's card opens "What … saw" for the agent's latest turn (run/seen.ts): a
// double click on the card once the run shown is over (or replayed) — the view a
// person reaches for first after a run; a single click still selects the card to
// edit it — and, from the keyboard, an item of the card's menu
// (Shift+F10) whenever that turn is over. A click on something of the card's own (a
// fix's button) does only that, and a click with Shift or Ctrl (selecting several)
// only selects.
import type { MouseEvent } from "react";
import { latestTurn, type Turn } from "../../run/reducer";
import { hasContext, openSeen } from "../../run/seen";
import { runStore, useRun } from "../../run/store";

/** The card's click handler; undefined while no run is shown or the run goes on. */
export function useSeenFromCard(agent: string | null | undefined): ((event: MouseEvent) => void) | undefined {
  const over = useRun((s) => s.view !== null && (s.replay !== null || s.view.status !== "running"));
  if (!over || !agent) return undefined;
  return (event) => {
    if (event.shiftKey || event.ctrlKey || event.metaKey) return;
    // (Not the canvas's double click, which adds an agent where it lands.)
    event.stopPropagation();
    if (event.target instanceof Element && event.target.closest("button, a, input, select, textarea, .nodrag")) return;
    openLatestSeen(agent);
  };
}

/** `agent`'s latest turn in the run shown, when it is over (null: none). */
export function latestSeenTurn(agent: string): Turn | null {
  const { view } = runStore.getState();
  const turn = view ? latestTurn(view, agent) : null;
  return turn && hasContext(turn) ? turn : null;
}

/** Opens what `agent` saw at its latest turn, when it has one that is over. */
export function openLatestSeen(agent: string): void {
  const runId = runStore.getState().view?.runId;
  const turn = latestSeenTurn(agent);
  if (runId && turn) openSeen(runId, turn);
}
