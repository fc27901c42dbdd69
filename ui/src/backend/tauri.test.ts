// The window's transport for recordings, typed replies and live runs, with Tauri's
// invoke and dialogs stood in for: each asks the person only when no path is given,
// a cancelled dialog calls nothing, and every operation goes through the shell's one
// `call` command with the operation's name and its request (fields as the generated
// request types name them).
import { beforeEach, describe, expect, it, vi } from "vitest";

const fake = vi.hoisted(() => ({
  invoked: [] as Array<[string, unknown]>,
  answers: {} as Record<string, unknown>,
  dialogs: [] as Array<[string, unknown]>,
  picked: null as string | null,
  /** The answers to `next_batch`, one a call, given when the test says. */
  batches: [] as Array<(batch: unknown) => void>,
  asked: [] as number[],
  /** `next_batch` fails (the window closing). */
  refusing: false,
  /** The watches stopped (`stop_watch`). */
  stopped: [] as number[],
}));

vi.mock("@tauri-apps/api/core", () => ({
  invoke: async (command: string, args: { operation?: string; request?: unknown; watch?: number }) => {
    if (command === "watch_run") return 7;
    if (command === "stop_watch") return void fake.stopped.push(args.watch as number);
    if (command === "next_batch") {
      fake.asked.push(args.watch as number);
      if (fake.refusing) throw "the window is closing";
      return new Promise((answer) => fake.batches.push(answer));
    }
    if (command !== "call" || !args.operation) throw { code: "invalid_input", message: `no command ${command}` };
    fake.invoked.push([args.operation, args.request]);
    const answer = fake.answers[args.operation];
    if (answer instanceof Error) throw { code: "invalid_input", message: answer.message };
    return answer;
  },
}));
vi.mock("@tauri-apps/api/window", () => ({ getCurrentWindow: () => ({}) }));
vi.mock("@tauri-apps/plugin-dialog", () => ({
  ask: async () => true,
  open: async (options: unknown) => {
    fake.dialogs.push(["open", options]);
    return fake.picked;
  },
  save: async (options: unknown) => {
    fake.dialogs.push(["save", options]);
    return fake.picked;
  },
}));

const { tauriBackend } = await import("./tauri");

beforeEach(() => {
  Object.assign(fake, { invoked: [], answers: {}, dialogs: [], picked: null, batches: [], asked: [], refusing: false, stopped: [] });
});

describe("the window's transport", () => {
  it("exports a recording where the person chooses, a .json named after the run", async () => {
    fake.picked = "/home/ana/run-1.json";
    await expect(tauriBackend.exportRun("run-1")).resolves.toBe("/home/ana/run-1.json");
    const [[kind, options]] = fake.dialogs;
    expect(kind).toBe("save");
    expect(options).toMatchObject({ defaultPath: "run-1.json", filters: [{ extensions: ["json"] }] });
    expect(fake.invoked).toEqual([["export_run", { id: "run-1", path: "/home/ana/run-1.json" }]]);
  });

  it("writes nothing when the person cancels the save dialog, and asks nothing when given a path", async () => {
    await expect(tauriBackend.exportRun("run-1")).resolves.toBeNull();
    expect(fake.invoked).toEqual([]);
    await tauriBackend.exportRun("run-1", "/tmp/r.json");
    expect(fake.dialogs).toHaveLength(1);
    expect(fake.invoked).toEqual([["export_run", { id: "run-1", path: "/tmp/r.json" }]]);
  });

  it("imports the recording the person opens (a .json), and passes the backend's refusal on as it is", async () => {
    const recording = { format: "crewgraph-run-recording", version: 1, run: { id: "run-1" }, crew: null, events: [] };
    fake.picked = "/home/ana/run-1.json";
    fake.answers.import_recording = recording;
    await expect(tauriBackend.importRecording()).resolves.toEqual(recording);
    expect(fake.dialogs[0]).toMatchObject(["open", { filters: [{ extensions: ["json"] }] }]);
    expect(fake.invoked).toEqual([["import_recording", { path: "/home/ana/run-1.json" }]]);

    fake.answers.import_recording = new Error("'/tmp/cut.json' ends early (line 3, column 1): the recording is truncated");
    await expect(tauriBackend.importRecording("/tmp/cut.json")).rejects.toMatchObject({ code: "invalid_input", message: /truncated/ });
  });

  it("reads the CrewAI project folder the person opens, then imports its files", async () => {
    const files = [
      { name: "/home/ana/poetry/config/agents.yaml", text: "poet:\n  role: Poet\n" },
      { name: "/home/ana/poetry/config/tasks.yaml", text: "poem:\n  agent: poet\n" },
    ];
    fake.picked = "/home/ana/poetry";
    fake.answers.read_crewai_project = { name: "poetry", files };
    await expect(tauriBackend.pickCrewAiProject()).resolves.toEqual({ name: "poetry", files });
    expect(fake.dialogs[0]).toMatchObject(["open", { directory: true }]);
    fake.answers.import_crewai = { name: "Poetry", warnings: [], inputs: [] };
    await tauriBackend.importCrewAi(files, "poetry");
    expect(fake.invoked).toEqual([
      ["read_crewai_project", { paths: ["/home/ana/poetry"] }],
      ["import_crewai", { files, name: "poetry" }],
    ]);
  });

  it("reads nothing when the person cancels the CrewAI folder dialog", async () => {
    await expect(tauriBackend.pickCrewAiProject()).resolves.toBeNull();
    expect(fake.invoked).toEqual([]);
  });

  it("opens nothing when the person cancels the open dialog", async () => {
    await expect(tauriBackend.importRecording()).resolves.toBeNull();
    expect(fake.invoked).toEqual([]);
  });

  it("types a reply for an agent, and lists the runs going on", async () => {
    fake.answers.live_runs = ["run-7"];
    await tauriBackend.typeReply("run-1", "host", "Hello [ASK_YOU]");
    await expect(tauriBackend.liveRuns()).resolves.toEqual(["run-7"]);
    expect(fake.invoked).toEqual([
      ["type_reply", { id: "run-1", agent: "host", text: "Hello [ASK_YOU]" }],
      ["live_runs", {}],
    ]);
  });

  it("asks what an agent saw at a step by the run's id, the step and the agent", async () => {
    fake.answers.step_context = { run_id: "run-1", step: 3, calls: [] };
    await expect(tauriBackend.stepContext("run-1", 3, "reporter")).resolves.toEqual({ run_id: "run-1", step: 3, calls: [] });
    expect(fake.invoked).toEqual([["step_context", { id: "run-1", step: 3, agent: "reporter" }]]);
  });

  it("forks a stored run at a reply's seq, sent as a plain number, with the new reply and how the rest runs", async () => {
    fake.answers.fork_run = { run_id: "run-2", events: "/runs/run-2/events" };
    await expect(tauriBackend.forkRun({ id: "run-1", at: 9, reply: "A book, please [BOOK]", script_file: "/s.yaml" })).resolves.toMatchObject({ run_id: "run-2" });
    expect(fake.invoked).toEqual([["fork_run", { id: "run-1", at: 9, reply: "A book, please [BOOK]", script_file: "/s.yaml" }]]);
    // (JSON carries it: a bigint would not go.)
    expect(JSON.stringify(fake.invoked[0][1])).toContain('"at":9');
  });

  it("names a crew by its path and a model's fields beside its name, as the generated requests say", async () => {
    await tauriBackend.openCrew("/home/ana/exam.yaml");
    await tauriBackend.putModel("fast", { provider: "openai", model: "gpt-4o-mini" });
    await tauriBackend.listModels();
    expect(fake.invoked).toEqual([
      ["open_crew", { crew: "/home/ana/exam.yaml" }],
      ["put_model", { name: "fast", provider: "openai", model: "gpt-4o-mini" }],
      ["list_models", { check: false }],
    ]);
  });

  it("says a failure that is not the API's as unavailable, never as a bare string", async () => {
    const { toBackendError } = await import("./Backend");
    expect(toBackendError("command call not found")).toMatchObject({ code: "unavailable", message: "command call not found" });
    expect(toBackendError({ code: "something_new", message: "?" }).code).toBe("unavailable");
    expect(toBackendError({ code: "conflict", message: "changed on disk" }).code).toBe("conflict");
  });

  it("asks for a watch's next batch only once the page has shown the last, and not after its end (paced by painting)", async () => {
    let show = () => {};
    const shown: unknown[] = [];
    const onBatch = (batch: unknown) =>
      new Promise<void>((settle) => {
        show = () => {
          shown.push(batch);
          settle();
        };
      });
    const tick = () => new Promise((r) => setTimeout(r, 0));
    await tauriBackend.watchRun("run-1", null, onBatch);
    await tick();
    expect(fake.asked).toEqual([7]);
    const first = { events: [{ seq: 0 }], end: null, lost_from: null };
    fake.batches[0](first);
    await tick();
    expect(fake.asked).toEqual([7]);
    show();
    await tick();
    expect(fake.asked).toEqual([7, 7]);
    fake.batches[1]({ events: [], end: "finished", lost_from: null });
    await tick();
    show();
    await tick();
    expect(fake.asked).toEqual([7, 7]);
    expect(shown).toEqual([first, { events: [], end: "finished", lost_from: null }]);
  });

  it("stops a watch the page no longer wants: nothing more is asked, and the shell is told", async () => {
    const tick = () => new Promise((r) => setTimeout(r, 0));
    let wanted = true;
    await tauriBackend.watchRun("run-1", null, async () => wanted);
    await tick();
    fake.batches[0]({ events: [{ seq: 0 }], end: null, lost_from: null });
    await tick();
    expect(fake.asked).toEqual([7, 7]);
    expect(fake.stopped).toEqual([]);
    // The person left the run: the page drops this watch's batches.
    wanted = false;
    fake.batches[1]({ events: [{ seq: 1 }], end: null, lost_from: null });
    await tick();
    await tick();
    expect(fake.asked).toEqual([7, 7]);
    expect(fake.stopped).toEqual([7]);
  });

  it("ends a watch whose shell cannot answer as lagged, so the page watches again", async () => {
    const batches: unknown[] = [];
    fake.refusing = true;
    await tauriBackend.watchRun("run-1", null, (batch) => void batches.push(batch));
    await new Promise((r) => setTimeout(r, 0));
    expect(batches).toEqual([{ events: [], end: "lagged", lost_from: null }]);
    expect(fake.asked).toEqual([7]);
  });
});
