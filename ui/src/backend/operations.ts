// The Backend's methods that are operations of the API, written once for both
// transports: each is one `call` of an operation of the generated table
// (bindings/operations.ts, made from the Rust declarations), so a renamed field, a
// changed answer or an unknown error code is a type error here, not a surprise at
// run time. A transport gives `call` (the window: one Tauri command; a browser: the
// operation's HTTP route) and `watch` (a run's events in batches), and adds what only
// it can do: dialogs, files, downloads.
//
//   const backend = { ...operationMethods(transport), pickCrew: …, confirm: … };
import type { OperationName, Operations } from "../bindings/operations";
import type { Backend, OnBatch } from "./Backend";

/** Does one operation: its request in, its answer out (or a BackendError). */
export type Call = <K extends OperationName>(name: K, request: Operations[K]["request"]) => Promise<Operations[K]["answer"]>;

/** How a transport reaches the API. */
export interface Transport {
  call: Call;
  /** Watches a run from after event `after` (null: all of it): its events in batches,
   * the last with `end`. Resolves once the watch is open. */
  watch(runId: string, after: number | null, onBatch: OnBatch): Promise<void>;
}

/** The methods a transport does not make itself. */
type DialogMethods = "pickCrew" | "pickCrewAiProject" | "pickSavePath" | "guardClose" | "confirm" | "largeCanvas" | "pickScript" | "exportRun" | "importRecording" | "keepsKeys";

/** Every Backend method that is an operation (or a run's watch), over `transport`. */
export function operationMethods({ call, watch }: Transport): Omit<Backend, DialogMethods> {
  return {
    listCrews: () => call("list_crews", {}),
    openCrew: (crew) => call("open_crew", { crew }),
    crewsFolder: () => call("crews_folder", {}),
    editCrew: (crew) => call("edit_crew", { crew }),
    checkCrew: (check) => call("check_crew", check),
    saveCrew: (save) => call("save_crew", save),
    crewYaml: (spec) => call("crew_yaml", { spec }),
    exportCrew: (path, spec) => call("export_crew", { path, spec }),
    crewDisk: (crew) => call("crew_disk", { crew }),
    recentCrews: () => call("recent_crews", {}),
    checkSignalName: (name) => call("check_signal_name", { name }),
    listModels: (check = false) => call("list_models", { check }),
    listToolServers: () => call("list_tool_servers", {}),
    putToolServer: (name, spec) => call("put_tool_server", { name, spec }),
    removeToolServer: (name) => call("remove_tool_server", { name }),
    importToolServers: (text) => call("import_tool_servers", { text }),
    checkToolServer: (name) => call("check_tool_server", { name }),
    crewTools: (servers, path) => call("crew_tools", { servers, path }),
    traces: () => call("traces", {}),
    setTraces: (settings) => call("set_traces", settings),
    putModel: (name, model) => call("put_model", { name, ...model }),
    removeModel: (name) => call("remove_model", { name }),
    setDefaultModel: (name) => call("set_default_model", { name }),
    checkModel: (name) => call("check_model", { name }),
    discoverModels: () => call("discover_models", {}),
    modelServers: () => call("model_servers", {}),
    setModelServers: (addresses) => call("set_model_servers", { addresses }),
    setApiKey: (name, key) => call("set_api_key", { name, key }),
    removeApiKey: (name) => call("remove_api_key", { name }),
    agentInstructions: (spec, agent) => call("agent_instructions", { spec, agent }),
    importCrewAi: (files, name) => call("import_crewai", { files, name: name ?? undefined }),

    async startRun(request, onBatch) {
      const { run_id } = await call("start_run", request);
      await watch(run_id, null, onBatch);
      return run_id;
    },
    // (`at` goes as the JSON number it is: the generated type's bigint is not JSON.)
    forkRun: (request) => call("fork_run", request as unknown as Operations["fork_run"]["request"]),
    watchRun: (runId, after, onBatch) => watch(runId, after, onBatch),
    async resumeRun(runId, request, after, onBatch) {
      await call("resume_run", { ...request, id: runId });
      await watch(runId, after, onBatch);
    },
    async approveToolCall(runId, request, after, onBatch) {
      await call("approve_tool_call", { ...request, id: runId });
      await watch(runId, after, onBatch);
    },
    async cancelRun(id) {
      await call("cancel_run", { id });
    },
    listRuns: () => call("list_runs", {}),
    listRevisions: (crew) => call("list_revisions", { crew }),
    diffRevisions: (crew, from, to) => call("diff_revisions", { crew, from, to }),
    openRevision: (crew, revision) => call("open_revision", { crew, revision }),
    runCrew: async (id) => (await call("get_run", { id })).crew,
    runEvents: (id) => call("run_events", { id }),
    stepContext: (id, step, agent) => call("step_context", { id, step, agent }),
    crewScripts: (crew) => call("crew_scripts", { crew }),
    testCrew: (crew) => call("test_crew", { crew }),
    typeReply: (id, agent, text) => call("type_reply", { id, agent, text }),
    stepRun: (id) => call("step_run", { id }),
    tryAgent: (request) => call("try_agent", request),
    liveRuns: () => call("live_runs", {}),
  };
}
