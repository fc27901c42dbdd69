import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import { BackendError } from "./Backend";
import { createHttpBackend, routed } from "./http";
import type { BrowserPage } from "./page";

type Sent = { method: string; url: string; headers: Headers; body: unknown };
type Route = (request: Sent) => Response | undefined;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const apiError = (status: number, code: string, message: string) => json({ code, message }, status);
const started = (seq: number): RunEvent => ({ run_id: "run-1", seq, timestamp: "2025-01-01T00:00:00Z", type: "agent_started", agent: "host", step: seq });

/** A page whose fetch answers from `routes` (first that answers wins; else 404) and
 * whose prompts answer from `answers`, remembering everything. */
function fakePage(
  routes: Route[],
  {
    token = null as string | null,
    answers = [] as Array<string | null>,
    files = [] as Array<{ name: string; text: string } | null>,
    picks = [] as Array<Array<{ name: string; text: string }> | null>,
  } = {},
) {
  const sent: Sent[] = [];
  const prompts: string[] = [];
  const saved: string[] = [];
  const downloads: Array<[string, string, string | undefined]> = [];
  const chosen: string[] = [];
  const page: BrowserPage = {
    async fetch(url, init) {
      const request = { method: init.method ?? "GET", url, headers: new Headers(init.headers), body: init.body ? JSON.parse(String(init.body)) : undefined };
      sent.push(request);
      for (const route of routes) {
        const response = route(request);
        if (response) return response;
      }
      return apiError(404, "not_found", `there is nothing at ${url}`);
    },
    prompt(message) {
      prompts.push(message);
      return answers.shift() ?? null;
    },
    confirm: () => true,
    download: (name, text, type) => void downloads.push([name, text, type]),
    async chooseFile(accept) {
      chosen.push(accept);
      return files.shift() ?? null;
    },
    async chooseFiles(accept) {
      chosen.push(accept);
      return picks.shift() ?? null;
    },
    onLeave: () => () => {},
    loadToken: () => token,
    saveToken: (t) => void saved.push(t),
  };
  return { page, sent, prompts, saved, downloads, chosen };
}

/** A route for `method url`. */
const on =
  (method: string, url: string, answer: (request: Sent) => Response | undefined): Route =>
  (request) =>
    request.method === method && request.url === url ? answer(request) : undefined;

/** Answers only requests carrying the token, as `crewgraph serve --token` does. */
const guarded =
  (token: string, route: Route): Route =>
  (request) =>
    request.headers.get("Authorization") === `Bearer ${token}` ? route(request) : apiError(401, "unauthorized", "this server wants its token");

/** The server's batched event stream: the events as one batch, the last saying the leg finished. */
const eventStream = (...events: RunEvent[]) => {
  const last = events.at(-1)?.seq ?? 0;
  const batch = { events, end: "finished", lost_from: null };
  return new Response(`event: batch\nid: ${last}\ndata: ${JSON.stringify(batch)}\n\n`, { headers: { "Content-Type": "text/event-stream" } });
};

/** Resolves once a batch with `end` arrived. */
function collect() {
  const batches: RunBatch[] = [];
  let ended!: () => void;
  const end = new Promise<void>((resolve) => (ended = resolve));
  return {
    batches,
    end,
    onBatch: (batch: RunBatch) => {
      batches.push(batch);
      if (batch.end) ended();
    },
  };
}

describe("the browser transport", () => {
  it("names a crew by one URL segment: its path in the crews folder, percent-encoded", async () => {
    // A nested crew's slashes must not become URL segments.
    const { page, sent } = fakePage([() => json({ path: "team/support.yaml" })]);
    const backend = createHttpBackend(page);
    await backend.openCrew("team/support.yaml");
    await backend.editCrew("exam.yaml");
    await backend.crewScripts("go-quiz");
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual(["GET crews/team%2Fsupport.yaml", "GET crews/exam.yaml/edit", "GET crews/go-quiz/scripts"]);
  });

  it("turns the server's {code, message} into a BackendError the UI can branch on", async () => {
    const { page } = fakePage([on("POST", "editor/save", () => apiError(409, "conflict", "exam.yaml changed on disk"))]);
    const save = createHttpBackend(page).saveCrew({ path: "exam.yaml", layout: "file", spec: {} as CrewSpec, positions: {}, overwrite: false });
    await expect(save).rejects.toBeInstanceOf(BackendError);
    await expect(save).rejects.toMatchObject({ code: "conflict", message: "exam.yaml changed on disk" });
  });

  it("says plainly when the page is not served by crewgraph serve", async () => {
    const { page } = fakePage([() => new Response("<!doctype html>", { status: 200 })]);
    await expect(createHttpBackend(page).listCrews()).rejects.toMatchObject({ code: "unavailable", message: /crewgraph serve/ });
  });

  it("sends the page's token, and reads 204 and JSON answers", async () => {
    const { page, sent } = fakePage(
      [guarded("T", on("DELETE", "models/fast", () => new Response(null, { status: 204 }))), guarded("T", on("GET", "editor/recent", () => json([])))],
      { token: "T" },
    );
    const backend = createHttpBackend(page);
    await expect(backend.removeModel("fast")).resolves.toBeUndefined();
    await expect(backend.recentCrews()).resolves.toEqual([]);
    expect(sent).toHaveLength(2);
  });

  it("never sends an API key over the web", async () => {
    const { page, sent } = fakePage([]);
    const backend = createHttpBackend(page);
    await expect(backend.setApiKey("openai", "sk-1")).rejects.toMatchObject({ code: "unavailable", message: /crewgraph keys set/ });
    await expect(backend.removeApiKey("openai")).rejects.toMatchObject({ code: "unavailable" });
    expect(sent).toHaveLength(0);
  });

  it("asks for the token once on a 401, keeps it and tries again — one question for requests refused together", async () => {
    const { page, prompts, saved, sent } = fakePage([guarded("s3cret", () => json([]))], { answers: [" s3cret "] });
    const backend = createHttpBackend(page);
    await Promise.all([backend.listCrews(), backend.listRuns(), backend.recentCrews()]);
    expect(prompts).toHaveLength(1);
    expect(saved).toEqual(["s3cret"]);
    await backend.listCrews();
    expect(sent.filter((r) => r.headers.get("Authorization") === "Bearer s3cret")).toHaveLength(4);
  });

  it("fails with the server's 401 when the person does not give the token, and does not ask again", async () => {
    const { page, prompts } = fakePage([guarded("s3cret", () => json([]))], { answers: [null] });
    const backend = createHttpBackend(page);
    await expect(backend.listCrews()).rejects.toMatchObject({ code: "unauthorized" });
    await expect(backend.listRuns()).rejects.toMatchObject({ code: "unauthorized" });
    expect(prompts).toHaveLength(1);
  });

  it("starts a run with the script named in the crews folder, then watches it from its first event", async () => {
    const { page, sent } = fakePage([
      on("POST", "runs", () => json({ run_id: "run-1", events: "/runs/run-1/events" }, 202)),
      on("GET", "runs/run-1/events?batches=true", () => eventStream(started(0), started(1))),
    ]);
    const { batches, end, onBatch } = collect();
    const id = await createHttpBackend(page).startRun({ crew: "interview.yaml", input: "Hi", script_file: "scripts/interview.yaml" }, onBatch);
    await end;
    expect(id).toBe("run-1");
    expect(sent[0].body).toEqual({ crew: "interview.yaml", input: "Hi", script_file: "scripts/interview.yaml" });
    expect(sent[1].headers.get("Accept")).toBe("text/event-stream");
    expect(batches.flatMap((b) => b.events.map((e) => e.seq))).toEqual([0, 1]);
    expect(batches.at(-1)?.end).toBe("finished");
  });

  it("resumes with the answer, then watches from after the event the window has", async () => {
    const { page, sent } = fakePage([
      on("POST", "runs/run-1/resume", () => json({ run_id: "run-1", events: "/runs/run-1/events" }, 202)),
      on("GET", "runs/run-1/events?batches=true&after=6", () => eventStream(started(7))),
    ]);
    const { batches, end, onBatch } = collect();
    await createHttpBackend(page).resumeRun("run-1", { input: "Blue", script_file: "scripts/interview.yaml" }, 6, onBatch);
    await end;
    expect(sent[0].body).toEqual({ input: "Blue", script_file: "scripts/interview.yaml" });
    expect(batches.flatMap((b) => b.events.map((e) => e.seq))).toEqual([7]);
  });

  it("does not watch when the resume is refused (another client resumed first)", async () => {
    const { page, sent } = fakePage([on("POST", "runs/run-1/resume", () => apiError(409, "conflict", "run-1 is going on already"))]);
    await expect(createHttpBackend(page).resumeRun("run-1", { input: "Blue" }, 6, () => {})).rejects.toMatchObject({ code: "conflict" });
    expect(sent).toHaveLength(1);
  });

  it("reads a run's stored events as one JSON list, and its crew from the run", async () => {
    const { page, sent } = fakePage([
      on("GET", "runs/run-1/events", (r) => (r.headers.get("Accept") === "application/json" ? json([started(0)]) : undefined)),
      on("GET", "runs/run-1", () => json({ run: {}, live: false, crew: "interview.yaml" })),
    ]);
    const backend = createHttpBackend(page);
    expect(await backend.runEvents("run-1")).toEqual([started(0)]);
    expect(await backend.runCrew("run-1")).toBe("interview.yaml");
    expect(sent).toHaveLength(2);
  });

  it("exports by handing the person the YAML as a download, writing nothing on the server", async () => {
    const { page, sent, downloads } = fakePage([on("POST", "editor/yaml", () => json("name: Exam\n"))]);
    await createHttpBackend(page).exportCrew("exports/exam-copy.yaml", { name: "Exam" } as CrewSpec);
    expect(downloads).toEqual([["exam-copy.yaml", "name: Exam\n", undefined]]);
    expect(sent.map((r) => r.url)).toEqual(["editor/yaml"]);
  });

  it("starts and resumes a run with typed replies, without a script", async () => {
    const { page, sent } = fakePage([
      on("POST", "runs", () => json({ run_id: "run-1", events: "/runs/run-1/events" }, 202)),
      on("POST", "runs/run-1/resume", () => json({ run_id: "run-1", events: "/runs/run-1/events" }, 202)),
      () => eventStream(started(0)),
    ]);
    const backend = createHttpBackend(page);
    const first = collect();
    await backend.startRun({ crew: "interview.yaml", input: "Hi", typed: true }, first.onBatch);
    await first.end;
    const second = collect();
    await backend.resumeRun("run-1", { input: "Blue", typed: true }, 0, second.onBatch);
    await second.end;
    expect(sent[0].body).toEqual({ crew: "interview.yaml", input: "Hi", typed: true });
    expect(sent.find((r) => r.url === "runs/run-1/resume")?.body).toEqual({ input: "Blue", typed: true });
  });

  it("sends a typed reply to the agent, and passes on the server's refusal as it is", async () => {
    const { page, sent } = fakePage([
      on("POST", "runs/run-1/reply", () => new Response(null, { status: 204 })),
      on("POST", "runs/run-2/reply", () => apiError(409, "conflict", "run 'run-2' is not going on with typed replies here")),
    ]);
    const backend = createHttpBackend(page);
    await expect(backend.typeReply("run-1", "host", "What is your name? [ASK_YOU]")).resolves.toBeUndefined();
    expect(sent[0].body).toEqual({ agent: "host", text: "What is your name? [ASK_YOU]" });
    await expect(backend.typeReply("run-2", "host", "Hi")).rejects.toMatchObject({ code: "conflict", message: /not going on with typed replies/ });
  });

  it("exports a run's recording as a download named after the run, byte for byte as the server wrote it", async () => {
    // Not parsed and written again: the file is the server's, every event in it.
    const text = '{"format":"crewgraph-run-recording","version":1,"events":[]}';
    const { page, downloads } = fakePage([on("GET", "runs/run-1/recording", () => new Response(text, { headers: { "Content-Type": "application/json" } }))]);
    await expect(createHttpBackend(page).exportRun("run-1")).resolves.toBe("run-1.json");
    expect(downloads).toEqual([["run-1.json", text, "application/json"]]);
  });

  it("imports a recording the person chooses, checked by the server; nothing is asked of the server when they cancel", async () => {
    const recording = { format: "crewgraph-run-recording", version: 1, run: { id: "run-1" }, crew: "interview.yaml", events: [started(0)] };
    const { page, sent, chosen } = fakePage([on("POST", "recordings/check", () => json(recording))], {
      files: [{ name: "run-1.json", text: "{…}" }, null],
    });
    const backend = createHttpBackend(page);
    await expect(backend.importRecording()).resolves.toEqual(recording);
    expect(sent[0].body).toEqual({ name: "run-1.json", text: "{…}" });
    expect(chosen[0]).toContain(".json");
    await expect(backend.importRecording()).resolves.toBeNull();
    expect(sent).toHaveLength(1);
  });

  it("imports a CrewAI project from the files the person uploads; nothing is asked of the server when they cancel", async () => {
    const imported = { name: "Poetry", file_name: "poetry.yaml", yaml: "name: Poetry\n", spec: { name: "Poetry" }, process: "sequential", warnings: [], inputs: ["topic"] };
    const picked = [
      { name: "agents.yaml", text: "poet:\n  role: Poet\n" },
      { name: "tasks.yaml", text: "poem:\n  agent: poet\n" },
    ];
    const { page, sent, chosen } = fakePage([on("POST", "import/crewai", () => json(imported))], { picks: [picked, null] });
    const backend = createHttpBackend(page);
    const project = await backend.pickCrewAiProject();
    expect(project).toEqual({ name: null, files: picked });
    expect(chosen[0]).toContain(".py");
    await expect(backend.importCrewAi(picked)).resolves.toEqual(imported);
    expect(sent[0].body).toEqual({ files: picked });
    await expect(backend.pickCrewAiProject()).resolves.toBeNull();
    expect(sent).toHaveLength(1);
  });

  it("says why a CrewAI project cannot be imported in the server's words, at file:line:col", async () => {
    const refusal = "tasks.yaml:2:10: error: task 'poem' is for agent 'writer', but agents.yaml has no agent called 'writer' (it has: poet)";
    const { page } = fakePage([on("POST", "import/crewai", () => apiError(400, "invalid_input", refusal))]);
    await expect(createHttpBackend(page).importCrewAi([{ name: "agents.yaml", text: "" }], "poetry")).rejects.toMatchObject({ code: "invalid_input", message: refusal });
  });

  it("says what is wrong with a recording in the server's words (truncated, newer, not one)", async () => {
    const truncated = "'run-1.json' ends early (line 1, column 40): the recording is truncated";
    const { page } = fakePage([on("POST", "recordings/check", () => apiError(400, "invalid_input", truncated))], { files: [{ name: "run-1.json", text: "{" }] });
    await expect(createHttpBackend(page).importRecording()).rejects.toMatchObject({ code: "invalid_input", message: truncated });
  });

  it("asks the server for the runs going on in it, in one request", async () => {
    const { page, sent } = fakePage([on("GET", "runs/live", () => json(["run-3"]))]);
    await expect(createHttpBackend(page).liveRuns()).resolves.toEqual(["run-3"]);
    expect(sent.map((r) => r.url)).toEqual(["runs/live"]);
  });

  it("routes each operation as its declaration says: path fields encoded, the rest as query or body", () => {
    expect(routed("open_crew", { crew: "go quiz/crew.yaml" })).toEqual({ method: "GET", url: "crews/go%20quiz%2Fcrew.yaml" });
    expect(routed("list_models", { check: true })).toEqual({ method: "GET", url: "models?check=true" });
    expect(routed("put_model", { name: "fast", provider: "openai" })).toEqual({ method: "PUT", url: "models/fast", body: { provider: "openai" } });
    expect(routed("cancel_run", { id: "run-1" })).toEqual({ method: "POST", url: "runs/run-1/cancel", body: undefined });
    expect(routed("resume_run", { id: "run-1", input: "Blue", model: undefined })).toEqual({
      method: "POST",
      url: "runs/run-1/resume",
      body: { input: "Blue" },
    });
    expect(() => routed("export_run", { id: "run-1", path: "/tmp/r.json" })).toThrow(BackendError);
    // A fork: the run's id in the path, the rest (a plain seq) as the body.
    expect(routed("fork_run", { id: "run-1", at: 9 as unknown as bigint, reply: "Hi [BOOK]", on_revision: true })).toEqual({
      method: "POST",
      url: "runs/run-1/fork",
      body: { at: 9, reply: "Hi [BOOK]", on_revision: true },
    });
    // What an agent saw: the step (and the agent, when named) as the query.
    expect(routed("step_context", { id: "run-1", step: 7, agent: undefined })).toEqual({ method: "GET", url: "runs/run-1/context?step=7" });
    expect(routed("step_context", { id: "run-1", step: 3, agent: "reporter" })).toEqual({ method: "GET", url: "runs/run-1/context?step=3&agent=reporter" });
  });
});
