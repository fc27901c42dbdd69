// The bottom region while a crew is open (UX.md): the run panel on the left, the
// transcript in the middle, and on the right the delegation tracker or what the run
// cost (two tabs: Handoffs, Usage), under a status line that says in plain words
// where the run stands ("Finished: Reporter said [END]", "Stopped after 4 handoffs
// (the limit)", "Failed: …") with Export recording once the run is not going on.
// It folds away to the status line, and starts folded (the canvas gets the room)
// until a run is shown; a run, or a pause (the crew needs an answer), opens it.
import "./run.css";
import { lazy, Suspense, useEffect, useState } from "react";
import { useRun } from "../../run/store";
import { statusWords } from "../../run/words";
import { launchWaiting } from "./launch";
import { ReplayBar } from "./ReplayBar";
import { RunPanel } from "./RunPanel";
import { runTone } from "./runClasses";
import { exportRecording } from "./runActions";
import { Tracker } from "./Tracker";
import { Transcript } from "./Transcript";
import { useNames } from "./useNames";

// The Usage tab's charts (chart.js) load when it is first opened, not with the window.
const UsageView = lazy(() => import("./UsageView").then((module) => ({ default: module.UsageView })));

type Tab = "handoffs" | "usage";

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
  // Open from the start when a run was asked for on this crew (the start view's Run).
  const [open, setOpen] = useState(() => view !== null || launchWaiting(crewPath));
  const runId = view?.runId ?? null;
  const replaying = useRun((s) => s.replay !== null);
  const names = useNames();
  const paused = view?.status === "paused";

  useEffect(() => {
    if (paused || runId) setOpen(true);
  }, [paused, runId]);

  const [tab, setTab] = useState<Tab>("handoffs");
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
        <ExportButton />
      </header>
      {/* Folded away, not unmounted: what the person typed and chose stays. */}
      <div className="run-dock-body" hidden={!open}>
        <RunPanel crewPath={crewPath} crewValid={crewValid} unsaved={unsaved} />
        <Transcript />
        <div className="run-side">
          <div className="run-tabs" role="tablist" aria-label="Beside the transcript">
            <SideTab tab="handoffs" current={tab} onSelect={setTab} label="Handoffs" title="Who handed the work to whom, and why" />
            <SideTab tab="usage" current={tab} onSelect={setTab} label="Usage" title="Tokens and time, per agent and for the run" />
          </div>
          {tab === "handoffs" ? (
            <Tracker />
          ) : (
            <Suspense fallback={<p className="run-empty run-usage">Loading…</p>}>
              <UsageView />
            </Suspense>
          )}
        </div>
      </div>
    </section>
  );
}

function SideTab({ tab, current, onSelect, label, title }: { tab: Tab; current: Tab; onSelect: (tab: Tab) => void; label: string; title: string }) {
  return (
    <button type="button" role="tab" className="run-tab" aria-selected={tab === current} onClick={() => onSelect(tab)} title={title}>
      {label}
    </button>
  );
}

/** Export recording: the run shown, with all its events, as one file — once it is
 * not going on (a replay of a recording file is a file already). */
function ExportButton() {
  const runId = useRun((s) => s.view?.runId ?? "");
  const goingOn = useRun((s) => s.replay === null && s.view?.status === "running" && s.ended === null);
  const imported = useRun((s) => s.imported);
  const [note, setNote] = useState<{ runId: string; text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  if (!runId || goingOn || imported) return null;

  const save = async () => {
    setBusy(true);
    setNote(null);
    try {
      const where = await exportRecording(runId);
      if (where) setNote({ runId, text: `Saved as ${where}`, error: false });
    } catch (e) {
      setNote({ runId, text: `Not exported: ${e instanceof Error ? e.message : String(e)}`, error: true });
    } finally {
      setBusy(false);
    }
  };
  const shown = note?.runId === runId ? note : null;
  return (
    <div className="run-export">
      {shown && (
        <span className={`run-export-note${shown.error ? " error" : ""}`} role={shown.error ? "alert" : undefined} aria-live="polite" title={shown.text}>
          {shown.text}
        </span>
      )}
      <button type="button" onClick={() => void save()} disabled={busy} title="Save this run and all its events as one file, to replay it later or elsewhere">
        {busy ? "Exporting…" : "Export recording"}
      </button>
    </div>
  );
}
