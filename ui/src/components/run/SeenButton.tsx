// The buttons that open "What Teacher saw" (run/seen.ts, SeenView.tsx): a link on a
// turn of the transcript, and a small eye on a line of the tracker for the turn whose
// reply led to that move. Shown once the turn is over (its context is stored with
// its step); each is a real button, reached with Tab and pressed with Enter.
import "./seen.css";
import { EyeIcon } from "../icons";
import type { Turn } from "../../run/reducer";
import { hasContext, openSeen, turnById } from "../../run/seen";
import { runStore, useRun } from "../../run/store";
import type { Namer } from "../../run/words";

/** "What Teacher saw", on a turn of the transcript. */
export function SeenButton({ turn, name }: { turn: Turn; name: string }) {
  if (!hasContext(turn)) return null;
  return (
    <button
      type="button"
      className="seen-open"
      onClick={() => openTurn(turn)}
      title={`What ${name} was given at this turn — its instructions, the messages it was shown, what its context window left out — and what it cost`}
    >
      What {name} saw
    </button>
  );
}

/** The eye on a tracker line: what the agent whose reply led to the move saw. */
export function SeenLineButton({ turnId, names }: { turnId: number | null; names: Namer }) {
  const turn = useRun((s) => turnById(s.view, turnId));
  if (!turn || !hasContext(turn)) return null;
  const words = `What ${names(turn.agent)} saw`;
  return (
    <button type="button" className="seen-open-line" onClick={() => openTurn(turn)} aria-label={words} title={`${words} before this move`}>
      <EyeIcon size={15} />
    </button>
  );
}

function openTurn(turn: Turn): void {
  const runId = runStore.getState().view?.runId;
  if (runId) openSeen(runId, turn);
}
