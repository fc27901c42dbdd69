// The Tauri transport: the only file that calls `invoke` (STYLE.md habit 10). Every
// operation goes through the shell's one `call` command (its name and request); a
// run's events through `watch_run`, then `next_batch` asked once the page has shown
// the last batch (the shell answers with all that arrived meanwhile, or with the
// first event to come: one round trip a batch), and `stop_watch` once the page no
// longer wants it. What is the window's own — native
// dialogs, closing the window, how it paints (`large_canvas`) — is here too.
import { invoke } from "@tauri-apps/api/core";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { ask, open, save } from "@tauri-apps/plugin-dialog";
import type { RunBatch } from "../bindings/RunBatch";
import { type Backend, type OnBatch, toBackendError } from "./Backend";
import { type Call, operationMethods, type Transport } from "./operations";

async function invokeChecked<T>(command: string, args: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

const call: Call = (operation, request) => invokeChecked("call", { operation, request });

const transport: Transport = {
  call,
  async watch(runId, after, onBatch) {
    const watch = await invokeChecked<number>("watch_run", { runId, after });
    void pull(watch, onBatch);
  },
};

export const tauriBackend: Backend = {
  ...operationMethods(transport),
  keepsKeys: true,
  async pickCrew(kind) {
    const picked = await open(
      kind === "folder"
        ? { directory: true, title: "Open a crew folder (with crew.yaml)" }
        : { title: "Open a crew file", filters: [{ name: "Crew files", extensions: ["yaml", "yml"] }] },
    );
    return typeof picked === "string" ? picked : null;
  },
  async pickCrewAiProject() {
    const picked = await open({ directory: true, title: "Import a CrewAI project (the folder with config/agents.yaml)" });
    if (typeof picked !== "string") return null;
    const project = await call("read_crewai_project", { paths: [picked] });
    return { name: project.name, files: project.files };
  },
  async pickSavePath(suggested, title) {
    const picked = await save({ title, defaultPath: suggested, filters: [{ name: "Crew files", extensions: ["yaml", "yml"] }] });
    return typeof picked === "string" ? picked : null;
  },
  guardClose(isDirty, askFirst) {
    const window = getCurrentWindow();
    let stop: (() => void) | null = null;
    let stopped = false;
    window
      .onCloseRequested(async (event) => {
        if (!isDirty()) return;
        event.preventDefault();
        if (await askFirst()) await window.destroy();
      })
      .then(
        (unlisten) => {
          if (stopped) unlisten();
          else stop = unlisten;
        },
        () => {},
      );
    return () => {
      stopped = true;
      stop?.();
    };
  },
  confirm: (message, title, ok, cancel) => ask(message, { title, kind: "warning", okLabel: ok, cancelLabel: cancel }),
  largeCanvas(shown) {
    // (Only how the window paints: nothing to tell the person when it cannot switch.)
    invoke("large_canvas", { shown }).catch(() => {});
  },
  async pickScript() {
    const picked = await open({ title: "Choose the agents' replies (a script)", filters: [{ name: "Scripts", extensions: ["yaml", "yml", "json"] }] });
    return typeof picked === "string" ? picked : null;
  },
  async exportRun(runId, path, name) {
    const target = path ?? (await pickRecordingPath(name ?? `${runId}.json`));
    if (!target) return null;
    await call("export_run", { id: runId, path: target });
    return target;
  },
  async importRecording(path) {
    const source = path ?? (await pickRecording());
    return source ? call("import_recording", { path: source }) : null;
  },
};

const recordings = [{ name: "Run recordings", extensions: ["json"] }];

/** Asks where to save a run's recording; null when the person cancels. */
async function pickRecordingPath(suggested: string): Promise<string | null> {
  const picked = await save({ title: "Save the run's recording", defaultPath: suggested, filters: recordings });
  return typeof picked === "string" ? picked : null;
}

/** Asks for a run recording to replay; null when the person cancels. */
async function pickRecording(): Promise<string | null> {
  const picked = await open({ title: "Open a run recording", filters: recordings });
  return typeof picked === "string" ? picked : null;
}

/** Hands `onBatch` the watch's batches to its end, asking for each once the page
 * has shown the last (`onBatch`'s promise settled, failed or not: the watch must not
 * stall). A shell that cannot answer ends the watch `lagged`: the page watches again
 * from the last event it has. A page that no longer wants the watch (`false`) stops
 * it: the shell forgets it, and nothing more is asked. */
async function pull(watch: number, onBatch: OnBatch): Promise<void> {
  for (;;) {
    const batch = await invoke<RunBatch>("next_batch", { watch }).catch((): RunBatch => ({ events: [], end: "lagged", lost_from: null }));
    const wanted = await Promise.resolve(onBatch(batch)).catch(() => true);
    if (batch.end !== null) return;
    if (wanted === false) {
      await invoke("stop_watch", { watch }).catch(() => {}); // (forgotten a minute after its run ends anyway)
      return;
    }
  }
}
