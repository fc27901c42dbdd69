// The one interface the UI talks to. Two transports implement it: Tauri IPC in the
// window (tauri.ts) and HTTP + server-sent events in a browser, against
// `crewgraph serve` (http.ts); the methods that are the API's operations are written
// once for both (operations.ts), typed by the generated operation table. index.ts
// picks one.
import type { ApiErrorCode } from "../bindings/ApiErrorCode";
import type { ApproveToolCall } from "../bindings/ApproveToolCall";
import type { ImportedCrew } from "../bindings/ImportedCrew";
import type { ImportedServers } from "../bindings/ImportedServers";
import type { ProjectFile } from "../bindings/ProjectFile";
import type { ServerCheck } from "../bindings/ServerCheck";
import type { ServerSpec } from "../bindings/ServerSpec";
import type { ServerTools } from "../bindings/ServerTools";
import type { ToolServerView } from "../bindings/ToolServerView";
import type { TraceSettings } from "../bindings/TraceSettings";
import type { TracesView } from "../bindings/TracesView";
import type { CheckCrew } from "../bindings/CheckCrew";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { CrewSummary } from "../bindings/CrewSummary";
import type { CrewTest } from "../bindings/CrewTest";
import type { EditableCrew } from "../bindings/EditableCrew";
import type { FoundServer } from "../bindings/FoundServer";
import type { ForkRun } from "../bindings/ForkRun";
import type { ModelCheck } from "../bindings/ModelCheck";
import type { ModelRequest } from "../bindings/ModelRequest";
import type { ModelView } from "../bindings/ModelView";
import type { Recording } from "../bindings/Recording";
import type { RecentCrew } from "../bindings/RecentCrew";
import type { SaveCrew } from "../bindings/SaveCrew";
import type { SavedCrew } from "../bindings/SavedCrew";
import type { ResumeRun } from "../bindings/ResumeRun";
import type { RunAccepted } from "../bindings/RunAccepted";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { StartRun } from "../bindings/StartRun";
import type { StepContext } from "../bindings/StepContext";
import type { TriedReply } from "../bindings/TriedReply";
import type { TryAgent } from "../bindings/TryAgent";
import type { RunSummary } from "../bindings/RunSummary";
import type { RevisionDiff } from "../bindings/RevisionDiff";
import type { RevisionSpec } from "../bindings/RevisionSpec";
import type { RevisionView } from "../bindings/RevisionView";


/** Takes a run's batch. The promise it may answer settles once the batch is on
 * screen: the window's transport then lets the next one come (all that arrived
 * meanwhile), so batches come as fast as the page paints them. It settles with
 * `false` once the page no longer wants the watch (a newer watch replaced it: the
 * person left the run): the window's transport then stops it. */
export type OnBatch = (batch: RunBatch) => void | Promise<void> | Promise<boolean>;

export interface Backend {
  /** The crews of the crews folder, for the start view. */
  listCrews(): Promise<CrewSummary[]>;
  /** Opens a crew file or a Go-engine crew folder. */
  openCrew(path: string): Promise<CrewDocument>;
  /** Where the example crews come from. */
  crewsFolder(): Promise<string>;
  /** Asks the person for a crew file or folder; null when they cancel. */
  pickCrew(kind: "file" | "folder"): Promise<string | null>;
  /** Asks the person for a CrewAI project: the window a folder (read with
   * read_crewai_project), a browser its files (agents.yaml, tasks.yaml, crew.py);
   * null when they cancel. */
  pickCrewAiProject(): Promise<CrewAiProject | null>;
  /** Makes a crew of a CrewAI project's files (nothing is saved): its YAML and spec,
   * the warnings (what was left out, at file:line:col) and the inputs the run asks for. */
  importCrewAi(files: ProjectFile[], name?: string | null): Promise<ImportedCrew>;
  /** Asks the person where to save (a .yaml file); null when they cancel. */
  pickSavePath(suggested: string, title: string): Promise<string | null>;
  /** Before the window closes while `isDirty()`, asks `ask()` and closes only on yes.
   * Returns a function that stops guarding. */
  guardClose(isDirty: () => boolean, ask: () => Promise<boolean>): () => void;
  /** Asks a yes/no question in a native dialog. */
  confirm(message: string, title: string, ok: string, cancel: string): Promise<boolean>;
  /** Tells the window whether the canvas shows a crew so large that zooming it needs
   * the compositor (useLargeCanvas); a browser paints as it likes. */
  largeCanvas(shown: boolean): void;

  /** Opens a crew for editing: its spec, the engine's verdict, saved positions. */
  editCrew(path: string): Promise<EditableCrew>;
  /** The engine's verdict on an edited crew (every edit is checked this way). */
  checkCrew(check: CheckCrew): Promise<CrewDocument>;
  /** Saves an edited crew (refused with code "conflict" when it changed on disk). */
  saveCrew(save: SaveCrew): Promise<SavedCrew>;
  /** The edited crew as the YAML of one file. */
  crewYaml(spec: CrewSpec): Promise<string>;
  /** Writes the edited crew as one YAML file at `path` (Export). */
  exportCrew(path: string, spec: CrewSpec): Promise<void>;
  /** The crew's files as they are now (compare with EditableCrew.disk). */
  crewDisk(path: string): Promise<string>;
  /** The crews opened lately, newest first. */
  recentCrews(): Promise<RecentCrew[]>;
  /** What is wrong with a signal name (null: nothing). */
  checkSignalName(name: string): Promise<string | null>;
  /** The models agents can use; `check` asks each whether it answers. */
  listModels(check?: boolean): Promise<ModelView[]>;
  /** The tool servers every crew can use (Settings). */
  listToolServers(): Promise<ToolServerView[]>;
  /** Adds or replaces a tool server every crew can use; refused in words when a crew file could not hold it. */
  putToolServer(name: string, spec: ServerSpec): Promise<ToolServerView>;
  /** Forgets a tool server of the app. */
  removeToolServer(name: string): Promise<void>;
  /** Adds the servers of an `mcpServers` JSON text (Claude Desktop, Cursor, VS Code). */
  importToolServers(text: string): Promise<ImportedServers>;
  /** Starts a tool server of the app and lists its tools. */
  checkToolServer(name: string): Promise<ServerCheck>;
  /** Settings · traces: where every run's OpenTelemetry trace goes, and how that is
   * going (spans sent, dropped, failed, the last problem). */
  traces(): Promise<TracesView>;
  /** Keeps Settings · traces (runs started from now on follow them); refused in
   * words (`invalid_input`) for an address that is no http(s) URL, a bad header. */
  setTraces(settings: TraceSettings): Promise<TracesView>;
  /** The tools of every server a crew can use (its own `servers`, and the app's). */
  crewTools(servers?: Record<string, ServerSpec>, path?: string): Promise<ServerTools[]>;
  /** Adds or replaces a model. */
  putModel(name: string, request: ModelRequest): Promise<void>;
  removeModel(name: string): Promise<void>;
  setDefaultModel(name: string): Promise<void>;
  /** Asks a model for real what it can do — does it answer, its context window,
   * streaming, tool calls, structured output, speed — and keeps the answer with it
   * (`ModelView.check`). Takes seconds. */
  checkModel(name: string): Promise<ModelCheck>;
  /** The model servers (Ollama, LM Studio, llama.cpp…) running at the addresses looked at. */
  discoverModels(): Promise<FoundServer[]>;
  /** The addresses (host:port) where model servers are looked for. */
  modelServers(): Promise<string[]>;
  /** Sets those addresses; an empty list means the usual ones again. */
  setModelServers(addresses: string[]): Promise<void>;
  /** Whether `setApiKey` can keep a key from here: the window can; a browser cannot
   * (keys are not sent over the web: they are set on the server's machine). */
  readonly keepsKeys: boolean;
  /** Keeps an API key in the OS keyring under `name`; it is never shown again. */
  setApiKey(name: string, key: string): Promise<void>;
  /** Forgets the key kept under `name`; false when there was none. */
  removeApiKey(name: string): Promise<boolean>;
  /** What the engine appends to an agent's prompt about its signals (null: nothing). */
  agentInstructions(spec: CrewSpec, agent: string): Promise<string | null>;

  /** Starts a run; its events arrive on `onBatch` (in batches, every `seq` once, the
   * last batch with `end`). Answers the run's id once its first step is stored. */
  startRun(request: StartRun, onBatch: OnBatch): Promise<string>;
  /** A new run from a stored one, at its reply `at` (an `agent_response` seq): the
   * turns before given again from the stored run, that reply replaced, the rest on the
   * model or a script. Answers at once; the new run goes on (watch it as any run).
   * Refused in words (a seq that is no reply, a run going on, a model- or
   * service-routed crew, a crew file changed since: `on_revision` forks the version
   * it ran). */
  forkRun(request: ForkRequest): Promise<RunAccepted>;
  /** Watches a run from after event `after` (all of it when null): stored, then live. */
  watchRun(runId: string, after: number | null, onBatch: OnBatch): Promise<void>;
  /** Resumes a paused run with the person's answer; events after `after` on `onBatch`. */
  resumeRun(runId: string, request: Omit<ResumeRun, "id">, after: number | null, onBatch: OnBatch): Promise<void>;
  /** Answers the tool call a paused run waits on (allow once, for the run, or deny)
   * and watches it go on; events after `after` on `onBatch`. */
  approveToolCall(runId: string, request: Omit<ApproveToolCall, "id">, after: number | null, onBatch: OnBatch): Promise<void>;
  /** Stops a run going on (it ends `cancelled`). */
  cancelRun(runId: string): Promise<void>;
  /** Past runs. */
  listRuns(): Promise<RunSummary[]>;
  /** A crew's revisions, newest first: what changed in each, in words, and its runs. */
  listRevisions(crew: string): Promise<RevisionView[]>;
  /** Revisions `from` and `to` of a crew compared (in words, and as one marked graph). */
  diffRevisions(crew: string, from: number, to: number): Promise<RevisionDiff>;
  /** One revision of a crew as the editor holds a crew, to restore it. */
  openRevision(crew: string, revision: number): Promise<RevisionSpec>;
  /** The crew file or folder a run was made from (null: not known, or gone). */
  runCrew(runId: string): Promise<string | null>;
  /** Every stored event of a run. */
  runEvents(runId: string): Promise<RunEvent[]>;
  /** What the agents of step `step` of a run were given (`agent`: only its calls) —
   * for each model call the system prompt, the messages shown, those the context
   * window cut, the tokens. Refused with "not_found", in words, for a step without a
   * turn (yet: it is stored with its step) or a run recorded before this was kept. */
  stepContext(runId: string, step: number, agent?: string): Promise<StepContext>;
  /** Scripts for Simulate mode that come with the crew (`scripts/<name>.yaml` beside it). */
  crewScripts(crewPath: string): Promise<string[]>;
  /** Route coverage of the saved crew: one Simulate run per arrow (no model called),
   * how often each arrow was taken, and why no run can take the others. */
  testCrew(crewPath: string): Promise<CrewTest>;
  /** Asks the person for a replies script (Simulate mode); null when they cancel. */
  pickScript(): Promise<string | null>;
  /** Simulate mode by hand: `agent`'s reply in a run started (or resumed) with
   * `typed: true` — for its turn now, or its next one. Refused with "invalid_input"
   * for an empty text, "conflict" for a run not going on with typed replies. */
  typeReply(runId: string, agent: string, text: string): Promise<void>;
  /** A scripted run at the step pace: lets its next turn come (the person's Next).
   * Refused with "conflict" for a run not going on so here. */
  stepRun(runId: string): Promise<void>;
  /** One agent's reply in a try-out chat on the edited crew (saved or not), and
   * where a run would go after it; `problem` when the model did not answer. */
  tryAgent(request: TryAgent): Promise<TriedReply>;
  /** Saves run `runId`'s recording (the run and every event, one JSON file). Without
   * `path` the person is asked where (the window: a save dialog offering `name`; a
   * browser: a download named `name`, else `<run id>.json`); with it (the window,
   * automation) it is written there. Answers where it went; null when the person
   * cancelled. */
  exportRun(runId: string, path?: string, name?: string): Promise<string | null>;
  /** Reads a run recording, checked whole, to replay it. Without `path` the person
   * chooses the file (a .json); null when they cancel. A truncated file, one of a
   * newer Crewgraph or one that is no recording is refused with a message saying so. */
  importRecording(path?: string): Promise<Recording | null>;
  /** The ids of the runs going on now (in the window's app, or in the server). */
  liveRuns(): Promise<string[]>;
}

/** A CrewAI project's files as picked, and its name when it is known (its folder's). */
export type CrewAiProject = { name: string | null; files: ProjectFile[] };

/** A fork's request, its `at` a plain number (the generated type says bigint for a
 * u64, which JSON cannot carry). */
export type ForkRequest = Omit<ForkRun, "at"> & { at: number };

/** An API failure as the backend reports it: `{code, message}`. */
export class BackendError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "BackendError";
  }
}

/** Every code the API answers (the generated ApiErrorCode, checked whole). */
const CODES: { readonly [C in ApiErrorCode]: true } = {
  not_found: true,
  invalid_input: true,
  io: true,
  invalid_crew: true,
  conflict: true,
  store: true,
  unauthorized: true,
  unavailable: true,
};

const isCode = (code: unknown): code is ApiErrorCode => typeof code === "string" && Object.hasOwn(CODES, code);

/** Turns whatever a transport rejected with into a BackendError (a failure that is
 * not the API's — a missing command, a broken connection — is "unavailable"). */
export function toBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (error && typeof error === "object" && "message" in error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return new BackendError(isCode(code) ? code : "unavailable", String(message));
  }
  return new BackendError("unavailable", String(error));
}
