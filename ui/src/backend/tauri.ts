// The Tauri transport: the only file that calls `invoke` (STYLE.md habit 10).
import { Channel, invoke } from "@tauri-apps/api/core";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { ask, open, save } from "@tauri-apps/plugin-dialog";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSummary } from "../bindings/CrewSummary";
import type { EditableCrew } from "../bindings/EditableCrew";
import type { ModelView } from "../bindings/ModelView";
import type { Recording } from "../bindings/Recording";
import type { RecentCrew } from "../bindings/RecentCrew";
import type { SavedCrew } from "../bindings/SavedCrew";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { RunSummary } from "../bindings/RunSummary";
import { type Backend, toBackendError } from "./Backend";

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

export const tauriBackend: Backend = {
  listCrews: () => call<CrewSummary[]>("list_crews"),
  openCrew: (path) => call<CrewDocument>("open_crew", { path }),
  crewsFolder: () => call<string>("crews_folder"),
  async pickCrew(kind) {
    const picked = await open(
      kind === "folder"
        ? { directory: true, title: "Open a crew folder (with crew.yaml)" }
        : { title: "Open a crew file", filters: [{ name: "Crew files", extensions: ["yaml", "yml"] }] },
    );
    return typeof picked === "string" ? picked : null;
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
      .then((unlisten) => (stopped ? unlisten() : (stop = unlisten)), () => {});
    return () => {
      stopped = true;
      stop?.();
    };
  },
  confirm: (message, title, ok, cancel) => ask(message, { title, kind: "warning", okLabel: ok, cancelLabel: cancel }),
  editCrew: (path) => call<EditableCrew>("edit_crew", { path }),
  checkCrew: (check) => call<CrewDocument>("check_crew", { check }),
  saveCrew: (request) => call<SavedCrew>("save_crew", { save: request }),
  crewYaml: (spec) => call<string>("crew_yaml", { spec }),
  exportCrew: (path, spec) => call<void>("export_crew", { path, spec }),
  crewDisk: (path) => call<string>("crew_disk", { path }),
  recentCrews: () => call<RecentCrew[]>("recent_crews"),
  checkSignalName: (name) => call<string | null>("check_signal_name", { name }),
  listModels: (check = false) => call<ModelView[]>("list_models", { check }),
  putModel: (name, request) => call<void>("put_model", { name, request }),
  removeModel: (name) => call<void>("remove_model", { name }),
  setDefaultModel: (name) => call<void>("set_default_model", { name }),
  setApiKey: (name, key) => call<void>("set_api_key", { name, key }),
  removeApiKey: (name) => call<boolean>("remove_api_key", { name }),
  agentInstructions: (spec, agent) => call<string | null>("agent_instructions", { spec, agent }),
  startRun: (request, onBatch) => call<string>("start_run", { request, onBatch: channel(onBatch) }),
  watchRun: (runId, after, onBatch) => call<void>("watch_run", { runId, after, onBatch: channel(onBatch) }),
  resumeRun: (runId, request, after, onBatch) => call<void>("resume_run", { runId, request, after, onBatch: channel(onBatch) }),
  cancelRun: (runId) => call<void>("cancel_run", { runId }),
  listRuns: () => call<RunSummary[]>("list_runs"),
  runEvents: (runId) => call<RunEvent[]>("run_events", { runId }),
  runCrew: (runId) => call<string | null>("run_crew", { runId }),
  crewScripts: (path) => call<string[]>("crew_scripts", { path }),
  async pickScript() {
    const picked = await open({ title: "Choose the agents' replies (a script)", filters: [{ name: "Scripts", extensions: ["yaml", "yml", "json"] }] });
    return typeof picked === "string" ? picked : null;
  },
  typeReply: (runId, agent, text) => call<void>("type_reply", { runId, agent, text }),
  async exportRun(runId, path) {
    const target = path ?? (await pickRecordingPath(`${runId}.json`));
    if (!target) return null;
    await call<void>("export_run", { runId, path: target });
    return target;
  },
  async importRecording(path) {
    const source = path ?? (await pickRecording());
    return source ? call<Recording>("import_recording", { path: source }) : null;
  },
  liveRuns: () => call<string[]>("live_runs"),
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

/** One Tauri channel per run watch: the run's batches, to `onBatch`. */
function channel(onBatch: (batch: RunBatch) => void): Channel<RunBatch> {
  const channel = new Channel<RunBatch>();
  channel.onmessage = onBatch;
  return channel;
}
