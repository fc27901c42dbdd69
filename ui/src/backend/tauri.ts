// The Tauri transport: the only file that calls `invoke` (STYLE.md habit 10). Every
// operation goes through the shell's one `call` command (its name and request); a
// run's events through `watch_run` on a channel, the next batch let come by
// `batch_shown` once the page has shown the last. What is the window's own — native
// dialogs, closing the window, how it paints (`large_canvas`) — is here too.
import { Channel, invoke } from "@tauri-apps/api/core";
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
  watch: (runId, after, onBatch) => invokeChecked<void>("watch_run", { runId, after, onBatch: channel(onBatch) }),
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

/** One Tauri channel per run watch: the run's batches, to `onBatch`. Once the page
 * has shown one (`onBatch`'s promise settled), the shell may send the next: what
 * arrived meanwhile, as one batch. */
function channel(onBatch: OnBatch): Channel<RunBatch> {
  const channel = new Channel<RunBatch>();
  // (Said even when showing failed: the watch must not stall.)
  const shown = () => invoke("batch_shown", { channel: channel.id }).catch(() => {});
  channel.onmessage = (batch) => {
    Promise.resolve(onBatch(batch)).then(shown, shown);
  };
  return channel;
}
