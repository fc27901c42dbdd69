// The window: the crews sidebar on the left, and the start view or the crew being
// edited. The editor store checks every edit through the backend. When the window
// starts while a run goes on (it was reloaded, say), that run is shown live; a run
// recording imported from the sidebar is replayed on its crew.
import { useEffect, useRef, useState } from "react";
import { backend } from "./backend";
import type { CrewSummary } from "./bindings/CrewSummary";
import { EditorView } from "./components/editor/EditorView";
import { useFiles } from "./components/editor/useFiles";
import { ErrorIcon } from "./components/icons";
import { ProblemsPanel } from "./components/ProblemsPanel";
import { SettingsDialog } from "./components/settings/SettingsDialog";
import { Sidebar } from "./components/Sidebar";
import { StartView } from "./components/StartView";
import type { RunSummary } from "./bindings/RunSummary";
import { dropLaunch, LAUNCH_INPUT, requestLaunch } from "./components/run/launch";
import { showRecording } from "./components/run/recordings";
import { exportRecording, openRun, showLiveRun } from "./components/run/runActions";
import { editorStore, useEditor } from "./editor/store";
import { paintDelays } from "./run/paintDelays";
import { runStore, useRun } from "./run/store";

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

  // The runs list: on start, and whenever a run's watch ends.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runEnded is the trigger, not an input
  useEffect(() => {
    backend.listRuns().then(setRuns, () => {});
  }, [runEnded]);

  // A past run: its crew opens, then the run is replayed (or watched, if going on).
  const showRun = async (run: RunSummary) => {
    const crew = await backend.runCrew(run.id).catch(() => null);
    if (crew && crew !== editorStore.getState().path) await files.openPath(crew);
    await openRun(run);
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
        openPath={files.open ? path : null}
        onHome={() => void files.close()}
        onOpen={(p) => void files.openPath(p)}
        onPick={(kind) => void files.pick(kind)}
        onNew={() => void files.newCrew()}
        onImport={() => void files.importCrew()}
        recent={files.recent}
        runs={runs}
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
          <EditorView key={files.generation} files={files} />
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
      {settings && <SettingsDialog onClose={() => setSettings(false)} />}
    </div>
  );
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
