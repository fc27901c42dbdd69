// The Tauri transport: the only file that calls `invoke` (STYLE.md habit 10).
import { invoke } from "@tauri-apps/api/core";
import { open } from "@tauri-apps/plugin-dialog";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSummary } from "../bindings/CrewSummary";
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
};
