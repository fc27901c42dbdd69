// Picks the transport: Tauri IPC inside the window, else HTTP + server-sent events
// to the `crewgraph serve` that handed out this page.
import { isTauri } from "@tauri-apps/api/core";
import type { Backend } from "./Backend";
import { createHttpBackend } from "./http";
import { browserPage } from "./page";
import { tauriBackend } from "./tauri";

export const backend: Backend = isTauri() ? tauriBackend : createHttpBackend(browserPage());
export type { Backend } from "./Backend";
export { BackendError } from "./Backend";
