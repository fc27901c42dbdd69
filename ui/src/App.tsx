// The window: the crews sidebar on the left, and the start view or the crew being
// edited. The editor store checks every edit through the backend. A run is shown
// on its own crew only: opening another crew (or a new one) lets the run shown go,
// and shows the new crew's run going on, if any. When the window starts while a run
// goes on (it was reloaded, say), that run is shown live; a run recording imported
// from the sidebar is replayed on its crew (or, made elsewhere, on the crew here of
// the same file name). The try-out chat with one agent floats over the crew.
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { backend } from "./backend";
import type { CrewSummary } from "./bindings/CrewSummary";
import { ImportReport } from "./components/editor/ImportReport";
import { useFiles } from "./components/editor/useFiles";
import { ErrorIcon } from "./components/icons";
import { Loading } from "./components/Loading";
import { ProblemsPanel } from "./components/ProblemsPanel";
import { Sidebar } from "./components/Sidebar";
import { StartView } from "./components/StartView";
import type { RunSummary } from "./bindings/RunSummary";
import { dropLaunch, LAUNCH_INPUT, requestLaunch } from "./components/run/launch";
import { showRecording } from "./components/run/recordings";
import { exportRecording, followCrew, openRun, showLiveRun } from "./components/run/runActions";
import type { Recording } from "./bindings/Recording";
import { listenForTryAgent } from "./run/tryAgent";
import { editorStore, useEditor } from "./editor/store";
import { paintDelays } from "./run/paintDelays";
import { runStore, useRun } from "./run/store";

// What the start view does not show is loaded when it is first wanted: the editor
// (React Flow, the canvas, the inspector, the run dock) when a crew opens, and the
// settings dialog when it opens.
const EditorView = lazy(() => import("./components/editor/EditorView").then((m) => ({ default: m.EditorView })));
const SettingsDialog = lazy(() => import("./components/settings/SettingsDialog").then((m) => ({ default: m.SettingsDialog })));
const TryAgentPanel = lazy(() => import("./components/run/TryAgentPanel").then((m) => ({ default: m.TryAgentPanel })));
const SeenView = lazy(() => import("./components/run/SeenView").then((m) => ({ default: m.SeenView })));
const ForkView = lazy(() => import("./components/run/ForkDialog").then((m) => ({ default: m.ForkView })));

// Every edit is checked by the engine (never by a second validator here).
editorStore.getState().setChecker((spec) => backend.checkCrew({ path: editorStore.getState().path ?? undefined, spec }));

export function App() {
  const [crews, setCrews] = useState<CrewSummary[] | null>(null);
  const [folder, setFolder] = useState("");
  const [error, setError] = useState<string | null>(null);
  const files = useFiles();
  const path = useEditor((s) => s.path);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [settings, setSettings] = useState(false);
  const runEnded = useRun((s) => s.ended);
  const [notice, setNotice] = useState<{ kind: "info" | "error"; text: string } | null>(null);

  const runId = useRun((s) => s.view?.runId ?? "");
  // The runs list: on start, whenever a run's watch ends, and when a run starts.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runEnded and runId are the triggers, not inputs
  useEffect(() => {
    backend.listRuns().then(setRuns, () => {});
  }, [runEnded, runId]);
  const runCrews = useRunCrews(runs);

  // A run belongs to its crew: another crew shown (opened, new, reloaded from disk
  // under another path) lets a run of a different crew go.
  const shownCrew = files.open ? path : null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: generation is a trigger (a new crew under the same path, or none)
  useEffect(() => {
    void followCrew(shownCrew);
  }, [shownCrew, files.generation, files.open]);

  // The try-out chat opens from anywhere: an event other parts of the window send.
  useEffect(() => listenForTryAgent(window), []);

  // A past run: its crew opens, then the run is replayed (or watched, if going on).
  // (When the person keeps their unsaved crew instead, nothing is shown.)
  const showRun = async (run: RunSummary) => {
    const crew = await backend.runCrew(run.id).catch(() => null);
    if (crew && crew !== editorStore.getState().path) {
      await files.openPath(crew);
      if (editorStore.getState().path !== crew) return;
    }
    await openRun(run, crew ?? editorStore.getState().path);
  };

  // Try it / Run on the start view: the crew opens and its run panel starts the run.
  const launch = async (crew: string, simulate: boolean) => {
    requestLaunch({ crew, simulate, input: LAUNCH_INPUT });
    await files.openPath(crew);
    if (editorStore.getState().path !== crew) dropLaunch();
  };

  // A run recording: chosen by the person (or given by path, automation), its crew
  // opened when it is here, then replayed; what went wrong in the backend's words.
  const importRecording = async (path?: string) => {
    setNotice(null);
    let recording: Awaited<ReturnType<typeof backend.importRecording>>;
    try {
      recording = await backend.importRecording(path);
    } catch (e) {
      setNotice({ kind: "error", text: `Could not open the recording: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    if (!recording) return;
    const open = files.open ? editorStore.getState().path : null;
    const said = await showRecording(recording, {
      open,
      openCrew: async (crew) => {
        await backend.openCrew(crew);
        await files.openPath(crew);
        const now = editorStore.getState().path;
        return now !== null && (now !== open || now === crew);
      },
      current: () => editorStore.getState().path,
      lookalike: (made) => lookalikeCrew(made, crews ?? []),
    });
    if (said) setNotice({ kind: "info", text: said });
  };
  const importLatest = useRef(importRecording);
  importLatest.current = importRecording;

  // A run going on when the window starts (a reload): shown live, on its crew.
  const caughtUp = useRef(false);
  useEffect(() => {
    if (caughtUp.current) return;
    caughtUp.current = true;
    showLiveRun((crew) => files.openPath(crew)).catch(() => {});
  }, [files.openPath]);

  // Automation (end-to-end tests, scripts driving the window): open a crew by path,
  // dropping unsaved edits without asking; export the run shown and import a
  // recording by path (what the buttons do once their file dialog answered).
  useEffect(() => {
    (window as unknown as { crewgraph: unknown }).crewgraph = {
      openCrew: (path: string) => files.openPath(path, true),
      paintDelays,
      runEvents: () => runStore.getState().events.length,
      runId: () => runStore.getState().view?.runId ?? null,
      exportRun: (runId: string, path: string) => exportRecording(runId, path),
      importRecording: (path: string) => importLatest.current(path),
    };
  }, [files.openPath]);

  useEffect(() => {
    backend.listCrews().then(setCrews, (e: Error) => {
      setCrews([]);
      setError(e.message);
    });
    backend.crewsFolder().then(setFolder, () => {});
  }, []);

  const banner = notice ?? files.notice ?? (error ? { kind: "error" as const, text: error } : null);
  return (
    <div className="app">
      <Sidebar
        crews={crews}
        openPath={files.open ? (path ?? "") : null}
        onHome={() => void files.close()}
        onOpen={(p) => void files.openPath(p)}
        onPick={(kind) => void files.pick(kind)}
        onNew={() => void files.newCrew()}
        onImport={() => void files.importCrew()}
        onImportCrewAi={() => void files.importCrewAi()}
        recent={files.recent}
        runs={runs}
        crewOf={(run) => runCrews[run.id]}
        onOpenRun={(run) => void showRun(run)}
        onImportRecording={() => void importRecording()}
        onSettings={() => setSettings(true)}
      />
      <main className="main">
        {banner && (
          <div className={`banner ${banner.kind}`} role={banner.kind === "error" ? "alert" : "status"}>
            {banner.kind === "error" && <ErrorIcon size={16} />} <span>{banner.text}</span>
            <button
              type="button"
              onClick={() => {
                files.dismiss();
                setError(null);
                setNotice(null);
              }}
              aria-label="Dismiss"
            >
              ×
            </button>
          </div>
        )}
        {files.importReport && <ImportReport report={files.importReport} onDismiss={files.dismiss} />}
        {files.changedOnDisk && (
          <div className="banner warning" role="alert">
            <span>This crew was changed by another program while you were editing it.</span>
            <button type="button" onClick={() => void files.reload()}>
              Show their version
            </button>
            <button type="button" onClick={files.dismiss}>
              Keep mine
            </button>
          </div>
        )}
        {files.open ? (
          <Suspense fallback={<Loading what="Opening the crew…" />}>
            <EditorView key={files.generation} files={files} />
          </Suspense>
        ) : files.unreadable ? (
          <Unreadable path={files.unreadable.path} text={files.unreadable.text} />
        ) : (
          <StartView
            crews={crews}
            folder={folder}
            onOpen={(p) => void files.openPath(p)}
            onPick={(kind) => void files.pick(kind)}
            onLaunch={(p, simulate) => void launch(p, simulate)}
          />
        )}
      </main>
      <Suspense fallback={null}>
        {settings && <SettingsDialog onClose={() => setSettings(false)} />}
        {files.open && <TryAgentPanel />}
        {files.open && <SeenView />}
        {files.open && <ForkView />}
      </Suspense>
    </div>
  );
}

/** Each run's crew (run id → its path; null: not known), asked of the backend once
 * per run, newest first (a run's crew never changes). */
function useRunCrews(runs: RunSummary[]): Record<string, string | null> {
  const [known, setKnown] = useState<Record<string, string | null>>({});
  const asked = useRef(new Set<string>());
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  useEffect(() => {
    const wanted = runs.slice(0, RUN_CREWS_ASKED).filter((run) => !asked.current.has(run.id));
    if (wanted.length === 0) return;
    for (const run of wanted) asked.current.add(run.id);
    (async () => {
      // (Shown as they come, a few at a time: one redraw per answer would be many.)
      let found: Record<string, string | null> = {};
      for (const [i, run] of wanted.entries()) {
        found[run.id] = await backend.runCrew(run.id).catch(() => null);
        if (!mounted.current) return;
        if (i % 10 === 9 || i === wanted.length - 1) {
          const batch = found;
          found = {};
          setKnown((all) => ({ ...all, ...batch }));
        }
      }
    })();
  }, [runs]);
  return known;
}

/** How many of the newest runs have their crew looked up. */
const RUN_CREWS_ASKED = 200;

/** The crew here that stands for a recording's crew this place cannot reach: the
 * crew of the same file name (a window's path, opened in a browser), else the one
 * of the same name. */
async function lookalikeCrew(recording: Recording, crews: CrewSummary[]): Promise<string | null> {
  const list = crews.length > 0 ? crews : await backend.listCrews().catch(() => []);
  const file = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;
  const made = recording.crew ? file(recording.crew) : null;
  return (made ? list.find((crew) => file(crew.path) === made)?.path : undefined) ?? list.find((crew) => crew.name === recording.run.crew_name)?.path ?? null;
}

/** A file that could not be read as a crew: what is wrong, and its text. */
function Unreadable({ path, text }: { path: string; text: string | null }) {
  const document = useEditor((s) => s.document);
  return (
    <div className="crew-view unreadable">
      <header className="crew-header">
        <div className="crew-title">
          <h1>{path.split("/").filter(Boolean).pop()}</h1>
          <p>This file could not be read as a crew, so there is nothing to draw yet. Fix the problems below in a text editor, then open it again.</p>
        </div>
      </header>
      <div className="canvas-column">
        <pre className="crew-text" role="region" aria-label="The file's text">
          {text ?? "(the file could not be read)"}
        </pre>
        <ProblemsPanel problems={document?.problems ?? []} onSelect={() => {}} />
      </div>
    </div>
  );
}
