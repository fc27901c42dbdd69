// The one interface the UI talks to. Two transports implement it: Tauri IPC in the
// window (tauri.ts) and, later, HTTP + server-sent events in a browser.
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSummary } from "../bindings/CrewSummary";

export interface Backend {
  /** The crews of the crews folder, for the start view. */
  listCrews(): Promise<CrewSummary[]>;
  /** Opens a crew file or a Go-engine crew folder. */
  openCrew(path: string): Promise<CrewDocument>;
  /** Where the example crews come from. */
  crewsFolder(): Promise<string>;
  /** Asks the person for a crew file or folder; null when they cancel. */
  pickCrew(kind: "file" | "folder"): Promise<string | null>;
}

/** An API failure as the backend reports it: `{code, message}`. */
export class BackendError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "BackendError";
  }
}

/** Turns whatever a transport rejected with into a BackendError. */
export function toBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (error && typeof error === "object" && "message" in error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return new BackendError(typeof code === "string" ? code : "unknown", String(message));
  }
  return new BackendError("unknown", String(error));
}
