// "Try another reply" on a turn of the transcript (issue 18, item 3): once the run is
// over (or replayed) and stored, each agent turn with a whole reply offers to run on
// from there with the agent saying something else (run/fork.ts, ForkDialog.tsx). A
// real button, reached with Tab and pressed with Enter.
import "./fork.css";
import type { Turn } from "../../run/reducer";
import { canFork, openFork, replySeq } from "../../run/fork";
import { runStore, useRun } from "../../run/store";

export function ForkButton({ turn, name }: { turn: Turn; name: string }) {
  const over = useRun((s) => s.replay !== null || (s.view?.result != null && s.view.status !== "running" && s.view.status !== "paused"));
  const imported = useRun((s) => s.imported);
  if (!canFork(turn, { over, imported })) return null;
  const open = () => {
    const { view, events, crew } = runStore.getState();
    const at = replySeq(events, turn);
    if (view?.runId && at !== null) openFork({ runId: view.runId, agent: turn.agent, reply: turn.text, at, crew });
  };
  return (
    <button type="button" className="fork-open" onClick={open} title={`Run on from here with ${name} saying something else: the turns before are taken from this run (no model asked, no tokens spent)`}>
      Try another reply
    </button>
  );
}
