// The bottom region while a crew is open (UX.md): the run panel on the left, the
// transcript in the middle, the delegation tracker on the right, under a status
// line that says in plain words where the run stands ("Finished: Reporter said
// [END]", "Stopped after 4 handoffs (the limit)", "Failed: …"). It folds away to
// the status line, and starts folded (the canvas gets the room) until a run is
// shown; a run, or a pause (the crew needs an answer), opens it.
import "./run.css";
import { useEffect, useState } from "react";
import { useRun } from "../../run/store";
import { statusWords } from "../../run/words";
import { ReplayBar } from "./ReplayBar";
import { RunPanel } from "./RunPanel";
import { runTone } from "./runClasses";
import { Tracker } from "./Tracker";
import { Transcript } from "./Transcript";
import { useNames } from "./useNames";

type RunDockProps = {
  /** The crew's file; null while it was never saved. */
  crewPath: string | null;
  /** False while the crew has errors. */
  crewValid: boolean;
  /** The crew has edits not saved yet. */
  unsaved?: boolean;
};

export function RunDock({ crewPath, crewValid, unsaved = false }: RunDockProps) {
  const view = useRun((s) => s.view);
  const [open, setOpen] = useState(view !== null);
  const runId = view?.runId ?? null;
  const replaying = useRun((s) => s.replay !== null);
  const names = useNames();
  const paused = view?.status === "paused";

  useEffect(() => {
    if (paused || runId) setOpen(true);
  }, [paused, runId]);

  const words = view ? statusWords(view, names) : "Ready to run";
  const tone = view ? runTone(view.status) : "idle";
  return (
    <section className={`run-dock${open ? "" : " collapsed"}`} aria-label="Run">
      <header className="run-dock-header">
        <button type="button" className="run-dock-toggle" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={open ? "Fold the run panel away" : "Show the run panel"} title={open ? "Fold the run panel away" : "Show the run panel"}>
          <span aria-hidden>{open ? "▾" : "▸"}</span> Run
        </button>
        <p className={`run-status run-tone-${tone}`} role="status">
          {replaying && <span className="run-replay-tag">Replay · </span>}
          {words}
        </p>
        {replaying && <ReplayBar />}
      </header>
      {/* Folded away, not unmounted: what the person typed and chose stays. */}
      <div className="run-dock-body" hidden={!open}>
        <RunPanel crewPath={crewPath} crewValid={crewValid} unsaved={unsaved} />
        <Transcript />
        <Tracker />
      </div>
    </section>
  );
}
