// Picks the transport: Tauri IPC inside the window. (A browser transport over
// `crewgraph serve` joins when the server exists.)
import { isTauri } from "@tauri-apps/api/core";
import { type Backend, BackendError } from "./Backend";
import { tauriBackend } from "./tauri";

const unavailable = (): Promise<never> =>
  Promise.reject(
    new BackendError("unavailable", "This page needs Crewgraph behind it: open it in the Crewgraph window."),
  );

const noBackend: Backend = {
  listCrews: unavailable,
  openCrew: unavailable,
  crewsFolder: unavailable,
  pickCrew: unavailable,
  pickSavePath: unavailable,
  guardClose: () => () => {},
  confirm: unavailable,
  editCrew: unavailable,
  checkCrew: unavailable,
  saveCrew: unavailable,
  crewYaml: unavailable,
  exportCrew: unavailable,
  crewDisk: unavailable,
  recentCrews: unavailable,
  checkSignalName: unavailable,
  listModels: unavailable,
  putModel: unavailable,
  removeModel: unavailable,
  setDefaultModel: unavailable,
  setApiKey: unavailable,
  removeApiKey: unavailable,
  agentInstructions: unavailable,
  startRun: unavailable,
  watchRun: unavailable,
  resumeRun: unavailable,
  cancelRun: unavailable,
  listRuns: unavailable,
  runEvents: unavailable,
  runCrew: unavailable,
  crewScripts: unavailable,
  pickScript: unavailable,
};

export const backend: Backend = isTauri() ? tauriBackend : noBackend;
export type { Backend } from "./Backend";
export { BackendError } from "./Backend";
