// @vitest-environment jsdom
// The run dock against a stand-in backend that plays the engine's batches: a run
// started from the panel fills the transcript and the tracker, a tracker line
// selects its arrow, Stop pressed twice stops once, Resume waits for a pause and
// sends the answer, and what the backend refuses is said inline.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResumeRun } from "../../bindings/ResumeRun";
import type { RunBatch } from "../../bindings/RunBatch";
import type { RunEvent } from "../../bindings/RunEvent";
import type { StartRun } from "../../bindings/StartRun";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { events, examRun, failedRun, pausedRun, resumedLeg } from "../../run/fixtures";
import { resetModels } from "../../models/store";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { requestLaunch } from "./launch";
import { RunDock } from "./RunDock";

type OnBatch = (batch: RunBatch) => void;

const fake = vi.hoisted(() => ({
  /** The batches the next run's watch delivers as soon as it starts. */
  script: [] as RunBatch[],
  /** The latest watch's handler, to deliver more later. */
  onBatch: null as ((batch: RunBatch) => void) | null,
  startError: null as Error | null,
  started: [] as unknown[],
  resumed: [] as unknown[][],
  approved: [] as unknown[][],
  cancelled: [] as string[],
  /** The scripts that come with the crew (Simulate mode). */
  scripts: [] as string[],
  /** The runs told to go on to their next turn (Next). */
  stepped: [] as string[],
  /** What the last check of the `fast` model found (undefined: never checked). */
  check: undefined as undefined | { answers: boolean; problem?: string; checked_at: number },
}));

vi.mock("../../backend", () => ({
  backend: {
    listModels: async () => [
      { name: "fast", provider: "openai", model: "gpt-4o-mini", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null, check: fake.check },
    ],
    stepRun: async (runId: string) => {
      fake.stepped.push(runId);
    },
    pickScript: async () => "/home/ana/scripts/exam.yaml",
    crewScripts: async () => fake.scripts,
    startRun: async (request: StartRun, onBatch: OnBatch) => {
      if (fake.startError) throw fake.startError;
      fake.started.push(request);
      fake.onBatch = onBatch;
      for (const batch of fake.script) onBatch(batch);
      return "run-1";
    },
    resumeRun: async (runId: string, request: Omit<ResumeRun, "id">, after: number | null, onBatch: OnBatch) => {
      fake.resumed.push([runId, request, after]);
      fake.onBatch = onBatch;
    },
    approveToolCall: async (runId: string, request: unknown, after: number | null, onBatch: OnBatch) => {
      fake.approved.push([runId, request, after]);
      fake.onBatch = onBatch;
    },
    cancelRun: async (runId: string) => {
      fake.cancelled.push(runId);
    },
  },
}));

const batch = (list: RunEvent[], end: RunBatch["end"] = null): RunBatch => ({ events: list, end, lost_from: null });
const PATH = "/home/ana/crews/exam.yaml";

afterEach(cleanup);
beforeEach(() => {
  // (Each test starts with the panels and paces as a new window has them.)
  localStorage.clear();
  open(examCrew(), examDocument());
  runStore.getState().reset();
  Object.assign(fake, { script: [], onBatch: null, startError: null, started: [], resumed: [], approved: [], cancelled: [], scripts: [], stepped: [], check: undefined });
  resetModels();
});

const input = () => screen.getByRole("textbox") as HTMLTextAreaElement;
const button = (name: string) => screen.getByRole("button", { name }) as HTMLButtonElement;
const status = () => screen.getByRole("status").textContent;
/** The dock starts folded while no run is shown: open it as the person would. */
const unfold = () => fireEvent.click(screen.getByRole("button", { name: "Show the run panel" }));

/** Batches wait for the next frame (or 100 ms without one) before they are shown. */
const shown = () => new Promise((resolve) => setTimeout(resolve, 120));

/** Hands the watch a batch, as the backend would, and waits until it is shown. */
const deliver = (one: RunBatch) =>
  act(async () => {
    fake.onBatch!(one);
    await shown();
  });

async function startWith(script: RunBatch[]) {
  fake.script = script;
  render(<RunDock crewPath={PATH} crewValid />);
  unfold();
  fireEvent.change(input(), { target: { value: "Begin." } });
  await act(async () => {
    fireEvent.click(button("Run"));
    await shown();
  });
}

describe("a run asked for on the start view", () => {
  it("opens the dock and starts at once on each agent's own model, with the input shown", async () => {
    fake.script = [batch(examRun(), "finished")];
    requestLaunch({ crew: PATH, simulate: false, input: "Please begin." });
    await act(async () => {
      render(<RunDock crewPath={PATH} crewValid />);
      await shown();
    });
    expect(fake.started).toEqual([{ crew: PATH, input: "Please begin." }]);
    expect(input().value).toBe("Please begin.");
    await waitFor(() => expect(status()).toBe("Finished: Teacher said [END_EXAM]"));
  });

  it("tries it in Simulate mode with the script that comes with the crew, once the crew can run", async () => {
    fake.script = [batch(examRun(), "finished")];
    fake.scripts = ["/home/ana/crews/scripts/exam.yaml"];
    requestLaunch({ crew: PATH, simulate: true, input: "Please begin." });
    const { rerender } = render(<RunDock crewPath={PATH} crewValid={false} />);
    await act(shown);
    expect(fake.started).toEqual([]); // not while the crew is being checked
    expect((screen.getByLabelText("Model") as HTMLSelectElement).value).toBe("\u0000simulate");
    await act(async () => {
      rerender(<RunDock crewPath={PATH} crewValid />);
      await shown();
    });
    expect(fake.started).toEqual([{ crew: PATH, input: "Please begin.", script_file: "/home/ana/crews/scripts/exam.yaml", pace: "readable" }]);
  });

  it("is not taken by another crew's panel", async () => {
    requestLaunch({ crew: "/elsewhere.yaml", simulate: false, input: "Please begin." });
    await act(async () => {
      render(<RunDock crewPath={PATH} crewValid />);
      await shown();
    });
    expect(fake.started).toEqual([]);
  });
});

describe("running a crew", () => {
  it("starts folded to its status line, leaving the canvas the room", () => {
    render(<RunDock crewPath={PATH} crewValid />);
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(status()).toBe("Ready to run");
    unfold();
    expect(input()).toBeTruthy();
  });

  it("starts the saved crew with the input and shows each batch in the transcript and the tracker", async () => {
    const all = examRun();
    await startWith([batch(all.slice(0, 3)), batch(all.slice(3, 18)), batch(all.slice(18), "finished")]);
    expect(fake.started).toEqual([{ crew: PATH, input: "Begin." }]);
    const transcript = screen.getByRole("log");
    expect(transcript.textContent).toContain("You askedBegin.");
    expect(transcript.textContent).toContain("Question 1: what is 1/2 + 1/4? [QUESTION]");
    expect(transcript.textContent).toContain("0.75 is 3/4: right. Score: 1/1");
    expect(screen.getAllByText("said [QUESTION] · exact")).toHaveLength(2);
    expect(screen.getByText("said [END_EXAM] · exact")).toBeTruthy();
    // The reporter's calculator, folded away.
    expect(screen.getAllByText("Used calculator")).toHaveLength(1);
    const lines = screen.getAllByRole("listitem").map((li) => li.querySelector(".run-handoff-who")?.textContent + (li.querySelector(".run-handoff-why")?.textContent ?? ""));
    // Each transfer, and the moves that are not signals: the group handing back, the end.
    expect(lines).toEqual([
      "Teacher → exam_round · because the reply said [QUESTION] (exact)",
      "exam_round → Teacher · then: the group is done and hands the work back",
      "Teacher → exam_round · because the reply said [QUESTION] (exact)",
      "exam_round → Teacher · then: the group is done and hands the work back",
      "Teacher → End · said [END_EXAM], so the run is over",
    ]);
    expect(status()).toBe("Finished: Teacher said [END_EXAM]");
  });

  it("shows the streamed words before the reply is whole, with the agent at work", async () => {
    await startWith([batch(examRun().slice(0, 3))]);
    expect(screen.getByRole("log").textContent).toContain("Question 1: what is 1/2 + 1/4? [QUESTION]");
    expect(screen.getByLabelText("writing")).toBeTruthy();
    expect(status()).toBe("Running: Teacher is working");
    expect(button("Run").disabled).toBe(true);
    expect(input().disabled).toBe(true);
  });

  it("a tracker line selects its arrow on the graph and highlights the turn that led to it", async () => {
    await startWith([batch(examRun(), "finished")]);
    fireEvent.click(screen.getAllByRole("button", { name: /Teacher → exam_round/ })[1]);
    expect(editorStore.getState().selection).toEqual(["rule:teacher:0:group:exam_round"]);
    expect(runStore.getState().highlight).toBe(17);
    expect(document.querySelector('[data-turn="17"]')?.className).toContain("highlighted");
  });

  it("a failed run keeps the partial reply and says what went wrong", async () => {
    await startWith([batch(failedRun(), "finished")]);
    const failed = screen.getByRole("article", { name: "Student's turn" });
    expect(failed.textContent).toContain("1/2 is 2/4, so the sum is");
    expect(failed.querySelector(".run-turn-error")?.textContent).toBe("provider unavailable.");
    // What happened and what to try first; the engine's words one click away.
    expect(status()).toBe("Failed at Student: provider unavailable. Run again, or choose another model in the Model list.");
    const note = document.querySelector(".run-failure") as HTMLElement;
    expect(note.textContent).toContain("Failed at Student: provider unavailable.");
    expect(note.querySelector(".run-failure-details")).toBeNull();
    fireEvent.click(button("Show the details"));
    expect(note.querySelector(".run-failure-details")?.textContent).toBe("agent 'student': provider unavailable");
  });

  it("Simulate runs with a chosen script; a model runs every agent with it", async () => {
    fake.script = [batch(examRun(), "finished")];
    render(<RunDock crewPath={PATH} crewValid />);
    unfold();
    fireEvent.change(input(), { target: { value: "Begin." } });
    await waitFor(() => expect(screen.getByRole("option", { name: "fast" })).toBeTruthy());
    const model = screen.getByLabelText("Model");
    fireEvent.change(model, { target: { value: "\u0000simulate" } });
    expect(button("Run").disabled).toBe(true);
    expect(screen.getByText("Choose a script with the agents' replies.")).toBeTruthy();
    await act(async () => {
      fireEvent.click(button("Choose script…"));
    });
    expect(screen.getByText("exam.yaml")).toBeTruthy();
    await act(async () => {
      fireEvent.click(button("Run"));
      await shown();
    });
    fireEvent.change(model, { target: { value: "fast" } });
    await act(async () => {
      fireEvent.click(button("Run"));
      await shown();
    });
    expect(fake.started).toEqual([
      { crew: PATH, input: "Begin.", script_file: "/home/ana/scripts/exam.yaml", pace: "readable" },
      { crew: PATH, input: "Begin.", model: "fast" },
    ]);
  });

  it("Run waits for a saved crew without errors, and says why", () => {
    const { rerender } = render(<RunDock crewPath={null} crewValid />);
    unfold();
    fireEvent.change(input(), { target: { value: "Begin." } });
    expect(button("Run").disabled).toBe(true);
    expect(screen.getByText("Save the crew first: a run uses the saved file.")).toBeTruthy();
    rerender(<RunDock crewPath={PATH} crewValid={false} />);
    expect(button("Run").disabled).toBe(true);
    expect(screen.getByText("Fix the crew's problems first (they are listed under the graph).")).toBeTruthy();
    rerender(<RunDock crewPath={PATH} crewValid />);
    expect(button("Run").disabled).toBe(false);
  });

  it("says in plain words when the backend refuses to start", async () => {
    fake.startError = new Error("the crew file could not be read");
    await startWith([]);
    expect(screen.getByRole("alert").textContent).toBe("Could not start the run: the crew file could not be read");
    expect(button("Run").disabled).toBe(false);
  });
});

describe("Stop", () => {
  it("pressed twice asks the backend once, and the run ends cancelled", async () => {
    await startWith([batch(examRun().slice(0, 3))]);
    await act(async () => {
      fireEvent.click(button("Stop"));
    });
    expect(button("Stopping…").disabled).toBe(true);
    await act(async () => {
      fireEvent.click(button("Stopping…"));
    });
    expect(fake.cancelled).toEqual(["run-1"]);
    await deliver(batch(events([{ type: "run_finished", status: "cancelled", final_agent: "teacher", handoffs: 0, steps: 1 }], "run-1", 3), "finished"));
    expect(status()).toBe("Cancelled");
    expect(button("Stop").disabled).toBe(true);
    expect(screen.getByText("Stopped before the reply was finished.")).toBeTruthy();
  });
});

describe("Resume", () => {
  it("is only for a paused run, and sends the person's answer", async () => {
    await startWith([batch(pausedRun().slice(0, 3))]);
    expect(button("Resume").disabled).toBe(true);
    await deliver(batch(pausedRun().slice(3), "finished"));
    expect(screen.getByLabelText("The crew is waiting for you: Teacher")).toBe(input());
    expect(document.activeElement).toBe(input());
    expect(status()).toBe("Paused: the crew is waiting for you (Teacher said [WAIT])");
    // No answer yet: nothing to send.
    expect(button("Resume").disabled).toBe(true);
    fireEvent.change(input(), { target: { value: "Fractions, please." } });
    expect(button("Resume").disabled).toBe(false);
    await act(async () => {
      fireEvent.click(button("Resume"));
    });
    expect(fake.resumed).toEqual([["run-1", { input: "Fractions, please." }, 6]]);
    await deliver(batch(resumedLeg(), "finished"));
    expect(screen.getByRole("log").textContent).toContain("You answered TeacherFractions, please.");
    expect(screen.getByRole("log").textContent).toContain("Fractions it is. Goodbye! [END_EXAM]");
    expect(status()).toBe("Finished: Teacher said [END_EXAM]");
    expect(button("Resume").disabled).toBe(true);
    expect(screen.getByLabelText("What should the crew do?")).toBe(input());
  });
});

describe("a tool call waiting for approval", () => {
  const asked = () =>
    events([
      { type: "run_started", crew: "Fractions exam", input: "Begin." },
      { type: "agent_started", agent: "teacher", step: 1 },
      { type: "tool_call", agent: "teacher", name: "files.write_file", arguments: { path: "/home/ana/notes.md", content: "1/2 + 1/4 = 3/4" } },
      { type: "tool_approval_requested", agent: "teacher", call_id: "call-1-0", name: "files.write_file", arguments: { path: "/home/ana/notes.md", content: "1/2 + 1/4 = 3/4" } },
      { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 1 },
    ]);

  it("is a card that takes the focus, shows the arguments, and sends the person's choice", async () => {
    await startWith([batch(asked(), "finished")]);
    const card = screen.getByRole("alertdialog");
    expect(card.textContent).toContain("Teacher wants to use “write file” from files");
    expect(card.textContent).toContain("/home/ana/notes.md");
    expect(card.textContent).toContain("1/2 + 1/4 = 3/4");
    expect(document.activeElement).toBe(button("Allow once"));
    expect(button("Resume").disabled).toBe(true);
    expect(screen.getByRole("log").textContent).toContain("waits for you to allow it");
    fireEvent.change(screen.getByLabelText(/Why not\?/), { target: { value: "not that folder" } });
    await act(async () => {
      fireEvent.click(button("Don't allow"));
    });
    expect(fake.approved).toEqual([["run-1", { call_id: "call-1-0", decision: "deny", reason: "not that folder" }, 4]]);
    await deliver(
      batch(
        events(
          [
            { type: "tool_approval", call_id: "call-1-0", decision: "deny", reason: "not that folder" },
            { type: "resumed", agent: "teacher", input: "" },
            { type: "tool_result", agent: "teacher", name: "files.write_file", result: "error: the call was not allowed (not that folder)" },
            { type: "agent_response", agent: "teacher", content: "I will not write it. [END_EXAM]" },
            { type: "run_finished", status: "terminated", final_agent: "teacher", handoffs: 0, steps: 1 },
          ],
          "run-1",
          5,
        ),
        "finished",
      ),
    );
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(screen.getByRole("log").textContent).toContain("(not allowed: not that folder)");
  });
});

describe("a scripted run at the step pace", () => {
  it("offers the three paces; step by step, each turn waits for Next, which names whose turn it is", async () => {
    fake.scripts = ["/home/ana/crews/scripts/exam.yaml"];
    render(<RunDock crewPath={PATH} crewValid />);
    unfold();
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "\u0000simulate" } });
    await act(shown);
    expect(screen.getAllByRole("radio").map((r) => r.textContent)).toEqual(["As a model would", "Step by step", "At once"]);
    fireEvent.click(screen.getByRole("radio", { name: "Step by step" }));
    fireEvent.change(input(), { target: { value: "Begin." } });
    await act(async () => {
      fireEvent.click(button("Run"));
      await shown();
    });
    expect(fake.started).toEqual([{ crew: PATH, input: "Begin.", script_file: "/home/ana/crews/scripts/exam.yaml", pace: "step" }]);
    await deliver(batch(examRun().slice(0, 2)));
    expect(screen.getByText("Teacher is next: press Next to see its reply.")).toBeTruthy();
    await act(async () => {
      fireEvent.click(button("Next"));
    });
    expect(fake.stepped).toEqual(["run-1"]);
    // The reporter's turn asks its model again after its calculator: Next again.
    await deliver(batch(examRun().slice(2, 12)));
    expect(button("Next").disabled).toBe(true);
    await deliver(batch(examRun().slice(12, 14)));
    expect(screen.getByText("Reporter is next: press Next to see its reply.")).toBeTruthy();
    // Remembered for the crew.
    expect(JSON.parse(localStorage.getItem("crewgraph-pace") ?? "{}")).toEqual({ [PATH]: "step" });
  });
});

describe("a model that did not answer its last check", () => {
  it("is named before the run, with a way on: Simulate instead", async () => {
    fake.check = { answers: false, problem: "openai at http://127.0.0.1:9/v1: nothing answers at 127.0.0.1:9 — is the model server running? (refused)", checked_at: 1 };
    render(<RunDock crewPath={PATH} crewValid />);
    unfold();
    await act(shown);
    const warning = screen.getByRole("alert");
    expect(warning.textContent).toContain("fast did not answer when it was last checked: nothing answers at 127.0.0.1:9 — is the model server running? The run may fail");
    fireEvent.click(button("Simulate instead"));
    expect((screen.getByLabelText("Model") as HTMLSelectElement).value).toBe("\u0000simulate");
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
