// A recording opened in the window is replayed on its crew when that crew is here,
// else on the crew that is open with a notice saying so; and a window that starts
// while a run goes on shows the newest such run live, on its crew, with its reply
// boxes when this tab started it with typed replies.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Recording } from "../../bindings/Recording";
import type { RunBatch } from "../../bindings/RunBatch";
import { examRun } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { recordingName, showRecording } from "./recordings";
import { showLiveRun, startRun } from "./runActions";

const fake = vi.hoisted(() => ({
  live: [] as string[],
  runs: [] as Array<{ id: string }>,
  crews: {} as Record<string, string | null>,
  watched: [] as Array<[string, number | null]>,
}));

vi.mock("../../backend", () => ({
  backend: {
    liveRuns: async () => fake.live,
    listRuns: async () => fake.runs,
    runCrew: async (id: string) => fake.crews[id] ?? null,
    watchRun: async (runId: string, after: number | null, onBatch: (batch: RunBatch) => void) => {
      fake.watched.push([runId, after]);
      onBatch({ events: [], end: null, lost_from: null });
    },
    startRun: async () => "run-9",
  },
}));

const recording = (crew: string | null): Recording => ({
  format: "crewgraph-run-recording",
  version: 1,
  run: { id: "run-1" } as Recording["run"],
  crew,
  events: examRun(),
});

beforeEach(() => {
  runStore.getState().reset();
  Object.assign(fake, { live: [], runs: [], crews: {}, watched: [] });
  const storage = new Map<string, string>();
  vi.stubGlobal("sessionStorage", {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => void storage.set(key, value),
  });
  vi.stubGlobal("requestAnimationFrame", (then: () => void) => setTimeout(then, 0));
});

describe("a recording opened in the window", () => {
  it("opens its crew first when it is here, then replays it whole, marked as from a file", async () => {
    const opened: string[] = [];
    const said = await showRecording(recording("/crews/exam.yaml"), { open: "/crews/other.yaml", openCrew: async (c) => {
        opened.push(c);
        return true;
      } });
    expect(said).toBeNull();
    expect(opened).toEqual(["/crews/exam.yaml"]);
    const state = runStore.getState();
    expect(state.replay?.frames).toHaveLength(examRun().length);
    expect(state.imported).toBe(true);
    expect(state.view?.status).toBe("terminated");
  });

  it("does not open the crew again when it is the one open", async () => {
    const openCrew = vi.fn(async () => true);
    expect(await showRecording(recording("/crews/exam.yaml"), { open: "/crews/exam.yaml", openCrew })).toBeNull();
    expect(openCrew).not.toHaveBeenCalled();
  });

  it("is replayed on the crew that is open when its own is not here, and says so", async () => {
    const said = await showRecording(recording("/home/bo/crews/exam.yaml"), { open: "/crews/other.yaml", openCrew: async () => Promise.reject(new Error("not found")) });
    expect(said).toBe("This recording's crew (exam.yaml) is not here, so it is replayed on the crew that is open: agents it does not have show by their ids.");
    expect(runStore.getState().replay).not.toBeNull();
  });

  it("made elsewhere (a window's path, opened in a browser): replayed on the crew here of the same file name", async () => {
    const opened: string[] = [];
    const said = await showRecording(recording("/home/bo/crews/exam.yaml"), {
      open: null,
      openCrew: async (crew) => {
        if (crew.startsWith("/")) throw new Error("out of reach");
        opened.push(crew);
        return true;
      },
      current: () => opened.at(-1) ?? null,
      lookalike: async (r) => (r.crew?.endsWith("/exam.yaml") ? "exam.yaml" : null),
    });
    expect(opened).toEqual(["exam.yaml"]);
    expect(said).toBe("This recording was made with exam.yaml elsewhere: it is replayed on exam.yaml from here.");
    expect(runStore.getState()).toMatchObject({ crew: "exam.yaml", imported: true });
    expect(runStore.getState().view?.status).toBe("terminated");
  });

  it("with no crew open, says to open one", async () => {
    const said = await showRecording(recording(null), { open: null, openCrew: async () => false });
    expect(said).toBe("This recording does not say which crew it ran: open a crew with the same agents to see the run on its graph.");
  });
});

describe("recordingName", () => {
  it("names the file after the crew and what it was asked", () => {
    expect(recordingName("Interview", "Interview me about colours", "run-1")).toBe("Interview - Interview me about colours.json");
    expect(recordingName("Fractions exam", "a/b: what is 1/2?\nthen stop", "run-1")).toBe("Fractions exam - a b what is 1 2 then stop.json");
    expect(recordingName("", "", "run-7")).toBe("run-7.json");
    const long = recordingName("Crew", "Please write a very long story about a dragon who learns to bake bread in a small village", "run-1");
    expect(long).toBe("Crew - Please write a very long story about a dragon who learns to….json");
  });
});

describe("catching up when the window starts", () => {
  it("shows the newest run going on, its crew opened first", async () => {
    fake.live = ["run-2", "run-3"];
    fake.runs = [{ id: "run-3" }, { id: "run-2" }, { id: "run-1" }];
    fake.crews = { "run-3": "/crews/interview.yaml" };
    const opened: string[] = [];
    await expect(showLiveRun(async (crew) => void opened.push(crew))).resolves.toBe("run-3");
    expect(opened).toEqual(["/crews/interview.yaml"]);
    expect(fake.watched).toEqual([["run-3", null]]);
    expect(runStore.getState().view?.runId).toBe("run-3");
  });

  it("does nothing when no run goes on, or a run is shown already", async () => {
    await expect(showLiveRun(async () => {})).resolves.toBeNull();
    fake.live = ["run-3"];
    runStore.getState().load(examRun());
    await expect(showLiveRun(async () => {})).resolves.toBeNull();
    expect(fake.watched).toEqual([]);
  });

  it("shows the reply boxes again for a run this tab started with typed replies", async () => {
    await startRun({ crew: "/crews/interview.yaml", input: "Hi", typed: true });
    runStore.getState().reset();
    fake.live = ["run-9"];
    await showLiveRun(async () => {});
    expect(runStore.getState().typed).toBe(true);
  });
});
