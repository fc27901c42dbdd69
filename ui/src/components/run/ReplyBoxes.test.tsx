// @vitest-environment jsdom
// Simulate mode by hand in the run dock, against a stand-in backend: the run starts
// with typed replies and no script, the agent whose turn it is gets a box under its
// name with its own signals as chips, Enter sends (Shift+Enter does not), every
// member of a parallel group gets a box of its own, the box goes once the reply is
// in, a refusal is said in words, and a paused typed run resumes typed.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CrewDocument } from "../../bindings/CrewDocument";
import type { ResumeRun } from "../../bindings/ResumeRun";
import type { RunBatch } from "../../bindings/RunBatch";
import type { RunEvent } from "../../bindings/RunEvent";
import type { StartRun } from "../../bindings/StartRun";
import { examCrew } from "../../editor/fixtures";
import { examRun, events } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open, signalEdge } from "../inspector/testing";
import { agentSignals, chipLabel, withSignal } from "./ReplyBoxes";
import { RunDock } from "./RunDock";
import { SIMULATE_TYPED } from "./RunPanel";

type OnBatch = (batch: RunBatch) => void;

const fake = vi.hoisted(() => ({
  onBatch: null as ((batch: RunBatch) => void) | null,
  started: [] as unknown[],
  resumed: [] as unknown[][],
  replies: [] as string[][],
  replyError: null as Error | null,
}));

vi.mock("../../backend", () => ({
  backend: {
    listModels: async () => [],
    crewScripts: async () => ["/home/ana/scripts/exam.yaml"],
    startRun: async (request: StartRun, onBatch: OnBatch) => {
      fake.started.push(request);
      fake.onBatch = onBatch;
      return "run-1";
    },
    resumeRun: async (runId: string, request: Omit<ResumeRun, "id">, after: number | null, onBatch: OnBatch) => {
      fake.resumed.push([runId, request, after]);
      fake.onBatch = onBatch;
    },
    typeReply: async (runId: string, agent: string, text: string) => {
      if (fake.replyError) throw fake.replyError;
      fake.replies.push([runId, agent, text]);
    },
  },
}));

const batch = (list: RunEvent[], end: RunBatch["end"] = null): RunBatch => ({ events: list, end, lost_from: null });
const PATH = "/home/ana/crews/exam.yaml";
const shown = () => new Promise((resolve) => setTimeout(resolve, 120));
const deliver = (one: RunBatch) =>
  act(async () => {
    fake.onBatch!(one);
    await shown();
  });
const button = (name: string) => screen.getByRole("button", { name }) as HTMLButtonElement;
const replyBox = (name: string) => screen.getByLabelText(`What does ${name} say?`) as HTMLTextAreaElement;

afterEach(cleanup);
beforeEach(() => {
  // (Each test starts with the panels and paces as a new window has them.)
  localStorage.clear();
  open(examCrew(), examDocument());
  runStore.getState().reset();
  Object.assign(fake, { onBatch: null, started: [], resumed: [], replies: [], replyError: null });
});

/** Starts a typed run from the dock, as the person would. */
async function startTyped() {
  render(<RunDock crewPath={PATH} crewValid />);
  fireEvent.click(screen.getByRole("button", { name: "Show the run panel" }));
  fireEvent.change(screen.getByRole("textbox"), { target: { value: "Begin." } });
  fireEvent.change(screen.getByLabelText("Model"), { target: { value: SIMULATE_TYPED } });
  await act(async () => {
    fireEvent.click(button("Run"));
    await shown();
  });
}

describe("an agent's signals as chips", () => {
  it("are the signal arrows leaving its card, each once, in the graph's order", () => {
    expect(agentSignals(examDocument(), "teacher")).toEqual([
      { signal: "[QUESTION]", behavior: "parallel", description: null },
      { signal: "[END_EXAM]", behavior: "terminate", description: null },
    ]);
    // A group member's replies are not acted on by signal here: nothing to offer.
    expect(agentSignals(examDocument(), "student")).toEqual([]);
    expect(agentSignals(null, "teacher")).toEqual([]);
  });

  it("leave out a broadcast's second arrow; a line signal comes with the line it makes", () => {
    const base = examDocument();
    const document: CrewDocument = {
      ...base,
      signals: [{ name: "VERDICT", pattern: "^VERDICT: (.+)$", behavior: "route", description: "", allowed_agents: [], valid_targets: [], priority: 0, deprecated: null, origin: "declared", aliases: [] }],
      graph: {
        ...base.graph,
        edges: [
          signalEdge("teacher", 0, "agent:student", "[TELL_ALL]", "broadcast"),
          signalEdge("teacher", 0, "agent:reporter", "[TELL_ALL]", "broadcast"),
          signalEdge("teacher", 1, "agent:student", "VERDICT", "route"),
        ],
      },
    };
    const chips = agentSignals(document, "teacher");
    expect(chips.map((c) => c.signal)).toEqual(["[TELL_ALL]", "VERDICT"]);
    expect(chips[1]).toMatchObject({ pattern: "^VERDICT: (.+)$", line: { before: "VERDICT: ", payload: true, after: "" } });
    expect(chipLabel(chips[1])).toBe("VERDICT: …");
  });

  it("add the signal at the reply's end, after a space", () => {
    expect(withSignal("", "[DONE]")).toBe("[DONE]");
    expect(withSignal("All done.  ", "[DONE]")).toBe("All done. [DONE]");
  });
});

describe("Simulate (type each reply)", () => {
  it("starts the run with typed replies and no script", async () => {
    await startTyped();
    expect(fake.started).toEqual([{ crew: PATH, input: "Begin.", typed: true }]);
    expect(runStore.getState().typed).toBe(true);
  });

  it("gives the agent whose turn it is a box under its name, its signals as chips; Enter sends", async () => {
    await startTyped();
    expect(screen.getByText(/Waiting for the next turn/)).toBeTruthy();
    await deliver(batch(examRun().slice(0, 2)));
    const box = replyBox("Teacher");
    expect(document.activeElement).toBe(box);
    // The run's own input gives way to the reply box.
    expect(screen.queryByLabelText("What should the crew do?")).toBeNull();
    fireEvent.change(box, { target: { value: "Question 1: what is 1/2 + 1/4?" } });
    fireEvent.click(button("[QUESTION]"));
    expect(box.value).toBe("Question 1: what is 1/2 + 1/4? [QUESTION]");
    // Shift+Enter is a new line, not a send.
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(fake.replies).toEqual([]);
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter" });
    });
    expect(fake.replies).toEqual([["run-1", "teacher", "Question 1: what is 1/2 + 1/4? [QUESTION]"]]);
    expect(button("Sent").disabled).toBe(true);
    // The reply comes back as the agent's words: the box goes.
    await deliver(batch(examRun().slice(2, 6)));
    expect(screen.queryByLabelText("What does Teacher say?")).toBeNull();
  });

  it("gives each member of a parallel group a box of its own", async () => {
    await startTyped();
    await deliver(batch(examRun().slice(0, 7)));
    // Both members at work at once, as with typed replies: neither has written yet.
    await deliver(
      batch(
        events(
          [
            { type: "agent_started", agent: "student", step: 2 },
            { type: "agent_started", agent: "reporter", step: 3 },
          ],
          "run-1",
          7,
        ),
      ),
    );
    expect(replyBox("Student")).toBeTruthy();
    expect(replyBox("Reporter")).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Student's signals" })).toBeNull();
    fireEvent.change(replyBox("Reporter"), { target: { value: "Score: 1/1" } });
    await act(async () => {
      fireEvent.click(screen.getAllByRole("button", { name: "Send" })[1]);
    });
    expect(fake.replies).toEqual([["run-1", "reporter", "Score: 1/1"]]);
    // (The student still waits for its reply.)
    expect(replyBox("Student").disabled).toBe(false);
  });

  it("sends nothing empty, and says in words when the reply is refused", async () => {
    await startTyped();
    await deliver(batch(examRun().slice(0, 2)));
    expect(button("Send").disabled).toBe(true);
    fake.replyError = new Error("run 'run-1' is not going on with typed replies here");
    fireEvent.change(replyBox("Teacher"), { target: { value: "Hello" } });
    await act(async () => {
      fireEvent.click(button("Send"));
    });
    expect(screen.getByRole("alert").textContent).toBe("Teacher's reply was not sent: run 'run-1' is not going on with typed replies here");
    // It can be sent again.
    expect(button("Send").disabled).toBe(false);
  });

  it("a paused typed run resumes with typed replies", async () => {
    await startTyped();
    await deliver(
      batch(
        events([
          { type: "run_started", crew: "Fractions exam", input: "Begin." },
          { type: "agent_started", agent: "teacher", step: 1 },
          { type: "token", agent: "teacher", text: "Which topic? [WAIT]" },
          { type: "agent_response", agent: "teacher", content: "Which topic? [WAIT]" },
          { type: "paused", agent: "teacher", signal: "[WAIT]" },
          { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 1 },
        ]),
        "finished",
      ),
    );
    fireEvent.change(screen.getByLabelText("The crew is waiting for you: Teacher"), { target: { value: "Fractions" } });
    await act(async () => {
      fireEvent.click(button("Resume"));
    });
    expect(fake.resumed).toEqual([["run-1", { input: "Fractions", typed: true }, 5]]);
  });
});
