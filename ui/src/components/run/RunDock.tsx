// The bottom region while a crew is open (UX.md): the run panel on the left, the
// transcript in the middle, and on the right the delegation tracker, what the run
// cost, or the crew's route coverage (three tabs: Handoffs, Usage, Test — TestView
// paints the canvas's arrows by it while open), under a status line that says in plain words
// where the run stands ("Finished: Reporter said [END]", "Stopped after 4 transfers,
// the most this crew allows", "Failed at Host: nothing answers at … Start the model
// server, …"), Try one agent (a chat with one agent alone), and Export recording
// once the run is not going on. A failed run
// says what happened and what to try above the columns, the engine's own words one
// click away.
//
// The canvas is the main thing: the dock folds away to its status line (folded
// until a run is shown, unless the person left it open), is resized by its top edge,
// and never takes more than leaves the canvas half the window (run/layout.ts); how
// the person left it is remembered. In a narrow dock (a small window, 200 % zoom)
// the transcript, handoffs and usage share one column as tabs, so none becomes a
// sliver.
import "./run.css";
import { lazy, type ReactNode, Suspense, useEffect, useRef, useState } from "react";
import { explainFailure } from "../../run/errors";
import { clampHeight, DEFAULT_DOCK_HEIGHT, MIN_DOCK_HEIGHT, readLayout, rememberLayout } from "../../run/layout";
import { editorStore, useEditor } from "../../editor/store";
import { useRun } from "../../run/store";
import { agentToTry, openTryAgent } from "../../run/tryAgent";
import { statusWords } from "../../run/words";
import { launchWaiting } from "./launch";
import { recordingName } from "./recordings";
import { ReplayBar } from "./ReplayBar";
import { ResizeHandle } from "./ResizeHandle";
import { RunPanel } from "./RunPanel";
import { runTone } from "./runClasses";
import { TestView } from "./TestView";
import { exportRecording } from "./runActions";
import { Tracker } from "./Tracker";
import { Transcript } from "./Transcript";
import { useNames } from "./useNames";
import { usePanelRoom } from "./usePanelRoom";

// The Usage tab's charts (chart.js) load when it is first opened, not with the window.
const UsageView = lazy(() => import("./UsageView").then((module) => ({ default: module.UsageView })));

type Tab = "transcript" | "handoffs" | "usage" | "test";

/** Below this width the dock has two columns: the panel, and the rest as tabs. */
const WIDE = 1000;

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
  // Open from the start when the person left it open, a run is shown, or one was
  // asked for on this crew (the start view's Run).
  const [open, setOpen] = useState(() => readLayout().dockOpen || view !== null || launchWaiting(crewPath));
  const runId = view?.runId ?? null;
  const replaying = useRun((s) => s.replay !== null);
  const names = useNames();
  const paused = view?.status === "paused";
  const dock = useRef<HTMLElement>(null);
  const room = usePanelRoom(dock, MIN_DOCK_HEIGHT);
  const [wanted, setWanted] = useState(() => readLayout().dockHeight ?? DEFAULT_DOCK_HEIGHT);
  const height = clampHeight(wanted, MIN_DOCK_HEIGHT, room);
  const wide = useWidth(dock) >= WIDE;

  useEffect(() => {
    if (paused || runId) setOpen(true);
  }, [paused, runId]);

  const fold = (next: boolean) => {
    setOpen(next);
    rememberLayout({ dockOpen: next });
  };

  const [tab, setTab] = useState<Tab>("transcript");
  // (Wide, the transcript has a column of its own: the side shows the handoffs.)
  const side: Tab = wide && tab === "transcript" ? "handoffs" : tab;
  const words = view ? statusWords(view, names) : "Ready to run";
  const tone = view ? runTone(view.status) : "idle";
  const tabs = wide ? (["handoffs", "usage", "test"] as const) : (["transcript", "handoffs", "usage", "test"] as const);
  return (
    <section ref={dock} className={`run-dock${open ? "" : " collapsed"}${wide ? "" : " narrow"}`} aria-label="Run" style={open ? { height } : undefined}>
      {open && (
        <ResizeHandle
          label="the run panel"
          height={height}
          min={MIN_DOCK_HEIGHT}
          max={Number.isFinite(room) ? room : height}
          onResize={(h) => setWanted(clampHeight(h, MIN_DOCK_HEIGHT, room))}
          onDone={(h) => rememberLayout({ dockHeight: clampHeight(h, MIN_DOCK_HEIGHT, room) })}
          onReset={() => {
            setWanted(DEFAULT_DOCK_HEIGHT);
            rememberLayout({ dockHeight: null });
          }}
        />
      )}
      <header className="run-dock-header">
        <button
          type="button"
          className="run-dock-toggle"
          aria-expanded={open}
          onClick={() => fold(!open)}
          aria-label={open ? "Fold the run panel away" : "Show the run panel"}
          title={open ? "Fold the run panel away" : "Show the run panel"}
        >
          <span aria-hidden>{open ? "▾" : "▸"}</span> Run
        </button>
        <p className={`run-status run-tone-${tone}`} role="status" title={words}>
          {replaying && <span className="run-replay-tag">Replay · </span>}
          {words}
        </p>
        {replaying && <ReplayBar />}
        <TryButton />
        <ExportButton />
      </header>
      {/* Folded away, not unmounted: what the person typed and chose stays. */}
      <div className="run-dock-body" hidden={!open}>
        <FailureNote />
        <div className={`run-columns${wide ? "" : " narrow"}`}>
          <RunPanel crewPath={crewPath} crewValid={crewValid} unsaved={unsaved} />
          {wide && <Transcript />}
          <div className="run-side">
            <div className="run-tabs" role="tablist" aria-label={wide ? "Beside the transcript" : "What the run shows"}>
              {tabs.map((t) => (
                <SideTab key={t} tab={t} current={side} onSelect={setTab} />
              ))}
            </div>
            {side === "test" ? (
              <TestView crewPath={crewPath} crewValid={crewValid} unsaved={unsaved} />
            ) : side === "transcript" ? (
              <Transcript />
            ) : side === "handoffs" ? (
              <Tracker />
            ) : (
              <Usage />
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

function Usage(): ReactNode {
  return (
    <Suspense fallback={<p className="run-empty run-usage">Loading…</p>}>
      <UsageView />
    </Suspense>
  );
}

const TAB_WORDS: Record<Tab, { label: string; title: string }> = {
  transcript: { label: "Transcript", title: "What each agent wrote" },
  handoffs: { label: "Handoffs", title: "Who handed the work to whom, and why" },
  usage: { label: "Usage", title: "Tokens and time, per agent and for the run" },
  test: { label: "Test", title: "Can a run take every arrow? Simulated runs, no model called" },
};

function SideTab({ tab, current, onSelect }: { tab: Tab; current: Tab; onSelect: (tab: Tab) => void }) {
  const { label, title } = TAB_WORDS[tab];
  return (
    <button type="button" role="tab" className="run-tab" aria-selected={tab === current} onClick={() => onSelect(tab)} title={title}>
      {label}
    </button>
  );
}

/** The element's width as drawn (0 until measured). */
function useWidth(element: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const box = element.current;
    if (!box) return;
    setWidth(box.clientWidth);
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => setWidth(box.clientWidth));
    observer.observe(box);
    return () => observer.disconnect();
  }, [element]);
  // Not measured yet (or in tests without layout): wide.
  return width || WIDE;
}

/** A failed run: what happened and what to try, and the engine's own words one
 * click away. */
function FailureNote() {
  const error = useRun((s) => (s.view?.status === "failed" ? (s.view.result?.error ?? null) : null));
  const runId = useRun((s) => s.view?.runId ?? "");
  const names = useNames();
  const [shown, setShown] = useState<string | null>(null);
  if (error === null) return null;
  const failure = explainFailure(error);
  const details = shown === runId;
  return (
    <div className="run-failure" role="alert">
      <p className="run-failure-what">
        <strong>{failure.agent ? `Failed at ${names(failure.agent)}:` : "Failed:"}</strong> {failure.headline}
      </p>
      <p className="run-failure-try">
        {failure.advice}{" "}
        <button type="button" className="run-link" aria-expanded={details} onClick={() => setShown(details ? null : runId)}>
          {details ? "Hide the details" : "Show the details"}
        </button>
      </p>
      {details && <pre className="run-failure-details">{failure.details}</pre>}
    </div>
  );
}

/** Try one agent: a chat with one agent alone (the one selected on the canvas, else
 * the first to work), before running the whole crew. */
function TryButton() {
  const spec = useEditor((s) => s.spec);
  const agent = spec ? agentToTry(spec, editorStore.getState().selection) : null;
  return (
    <button
      type="button"
      className="run-dock-try"
      onClick={() => {
        const chosen = spec && agentToTry(spec, editorStore.getState().selection);
        if (chosen) openTryAgent(chosen);
      }}
      disabled={agent === null}
      title="A chat with one agent alone (the one selected, else the first to work): see how it answers before running the whole crew"
    >
      Try one agent
    </button>
  );
}

/** Export recording: the run shown, with all its events, as one file — once it is
 * not going on (a replay of a recording file is a file already). The file is named
 * after the crew and what it was asked ("Interview - Interview me about colours.json"). */
function ExportButton() {
  const runId = useRun((s) => s.view?.runId ?? "");
  const crewName = useRun((s) => s.view?.crew ?? "");
  const input = useRun((s) => s.view?.input ?? "");
  const goingOn = useRun((s) => s.replay === null && s.view?.status === "running" && s.ended === null);
  const imported = useRun((s) => s.imported);
  const [note, setNote] = useState<{ runId: string; text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  if (!runId || goingOn || imported) return null;

  const save = async () => {
    setBusy(true);
    setNote(null);
    try {
      const where = await exportRecording(runId, undefined, recordingName(crewName, input, runId));
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
