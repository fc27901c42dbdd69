// @vitest-environment jsdom
// Stepping through a run in the run panel, against a stand-in backend that plays the
// engine's batches: the agents chosen on the cards go with Run; a pause before an
// agent's turn shows, in words, whose turn comes and what it is about to be given,
// takes the focus, and its three buttons send the right resume (the words typed, one
// turn, the breakpoints changed while paused, none).
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResumeRun } from "../../bindings/ResumeRun";
import type { RunBatch } from "../../bindings/RunBatch";
import type { RunEvent } from "../../bindings/RunEvent";
import type { StartRun } from "../../bindings/StartRun";
import { examCrew } from "../../editor/fixtures";
import { resetModels } from "../../models/store";
import { breakpointStore, chosenBreakpoints, toggleBreakpoint } from "../../run/breakpoints";
import { events } from "../../run/fixtures";
import { closeSeen, seenStore } from "../../run/seen";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { RunPanel } from "./RunPanel";

type OnBatch = (batch: RunBatch) => void;

const fake = vi.hoisted(() => ({
  script: [] as RunBatch[],
  onBatch: null as ((batch: RunBatch) => void) | null,
  started: [] as unknown[],
  resumed: [] as unknown[][],
}));

vi.mock("../../backend", () => ({
  backend: {
    listModels: async () => [],
    crewScripts: async () => [],
    startRun: async (request: StartRun, onBatch: OnBatch) => {
      fake.started.push(request);
      fake.onBatch = onBatch;
      for (const batch of fake.script) onBatch(batch);
      return "run-1";
    },
    resumeRun: async (runId: string, request: Omit<ResumeRun, "id">, after: number | null, onBatch: OnBatch) => {
      fake.resumed.push([runId, request, after]);
      fake.onBatch = onBatch;
    },
  },
}));

const PATH = "/home/ana/crews/exam.yaml";
const batch = (list: RunEvent[], end: RunBatch["end"] = null): RunBatch => ({ events: list, end, lost_from: null });
/** Batches wait for the next frame (or 100 ms without one) before they are shown. */
const shown = () => new Promise((resolve) => setTimeout(resolve, 120));
const button = (name: string) => screen.getByRole("button", { name }) as HTMLButtonElement;

/** A run that pauses before the teacher's first turn (seq 0–3). */
const heldFirst = () =>
  events([
    { type: "run_started", crew: "Fractions exam", input: "Begin." },
    { type: "breakpoints_set", agents: ["teacher"] },
    { type: "paused", agent: "teacher", breakpoint: true },
    { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 0 },
  ]);

/** Stepped one turn from there: the teacher asks, the round answers, the run pauses
 * before the teacher's next turn (seq 4–17). */
const stepped = () =>
  events(
    [
      { type: "resumed", agent: "teacher", input: "Be kind." },
      { type: "agent_started", agent: "teacher", step: 1 },
      { type: "agent_response", agent: "teacher", content: "Question 1: what is 1/2 + 1/4? [QUESTION]" },
      { type: "signal_matched", agent: "teacher", signal: "[QUESTION]", level: "exact", behavior: "parallel", target: "exam_round" },
      { type: "handoff", from: "teacher", to: "exam_round", reason: "signal [QUESTION] (exact)", handoff_count: 1 },
      { type: "parallel_started", group: "exam_round", agents: ["student", "reporter"] },
      { type: "agent_started", agent: "student", step: 2 },
      { type: "agent_response", agent: "student", content: "1/2 is 2/4, and 2/4 + 1/4 = 3/4." },
      { type: "agent_started", agent: "reporter", step: 3 },
      { type: "agent_response", agent: "reporter", content: "0.75 is 3/4: right. Score: 1/1" },
      { type: "parallel_finished", group: "exam_round", finished: ["student", "reporter"], timed_out: [] },
      { type: "paused", agent: "teacher", breakpoint: true },
      { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 1, steps: 3 },
    ],
    "run-1",
    4,
  );

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
  open(examCrew(), examDocument());
  runStore.getState().reset();
  breakpointStore.setState({ byCrew: {} });
  Object.assign(fake, { script: [], onBatch: null, started: [], resumed: [] });
  resetModels();
});

async function startPaused() {
  toggleBreakpoint(PATH, "teacher");
  fake.script = [batch(heldFirst(), "finished")];
  render(<RunPanel crewPath={PATH} crewValid />);
  fireEvent.change(screen.getByRole("textbox"), { target: { value: "Begin." } });
  await act(async () => {
    fireEvent.click(button("Run"));
    await shown();
  });
}

const press = (name: string) =>
  act(async () => {
    fireEvent.click(button(name));
  });

describe("a run paused before an agent's turn", () => {
  it("starts with the agents chosen on the cards", async () => {
    await startPaused();
    expect(fake.started).toEqual([{ crew: PATH, input: "Begin.", breakpoints: ["teacher"] }]);
  });

  it("says whose turn comes and what it is about to be given, and takes the focus", async () => {
    await startPaused();
    const card = screen.getByRole("region", { name: "Paused before Teacher's turn" });
    expect(card.textContent).toContain("Teacher is about to be given:");
    expect(card.textContent).toContain("You are a patient maths teacher.");
    expect(card.textContent).toContain("The messages so far (1):");
    expect(card.textContent).toContain("You asked: Begin.");
    // No earlier turn: nothing to show of what it saw.
    expect(screen.queryByRole("button", { name: /saw last time/ })).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText("Tell Teacher something first (optional)"));
    // The answer box of a Wait is not there, and Resume leaves it to the card.
    expect(button("Resume").disabled).toBe(true);
  });

  it("Step one turn sends the words and one turn; the next pause shows the latest messages and what it saw last time", async () => {
    await startPaused();
    fireEvent.change(screen.getByLabelText("Tell Teacher something first (optional)"), { target: { value: "Be kind." } });
    await press("Step one turn");
    expect(fake.resumed).toEqual([["run-1", { input: "Be kind.", step: true }, 3]]);
    await act(async () => {
      fake.onBatch!(batch(stepped(), "finished"));
      await shown();
    });
    const card = screen.getByRole("region", { name: "Paused before Teacher's turn" });
    expect(card.textContent).toContain("The latest 3 of 5 messages:");
    expect(card.textContent).toContain("Student: 1/2 is 2/4");
    expect(card.textContent).toContain("Reporter: 0.75 is 3/4: right. Score: 1/1");
    // A new pause: the box is empty again and has the focus.
    const box = screen.getByLabelText("Tell Teacher something first (optional)") as HTMLTextAreaElement;
    expect(box.value).toBe("");
    expect(document.activeElement).toBe(box);
    fireEvent.click(button("What Teacher saw last time"));
    expect(seenStore.getState().open).toMatchObject({ runId: "run-1", step: 1, agent: "teacher" });
    closeSeen();
  });

  it("Continue sends no step, and the breakpoints changed while paused", async () => {
    await startPaused();
    await press("Continue");
    expect(fake.resumed[0][1]).toEqual({});
    // (Paused again for this test: the card stays until the run goes on.)
    toggleBreakpoint(PATH, "student");
    await press("Continue");
    expect(fake.resumed[1][1]).toEqual({ breakpoints: ["teacher", "student"] });
  });

  it("Ctrl+Enter in the box continues with its words", async () => {
    await startPaused();
    const box = screen.getByLabelText("Tell Teacher something first (optional)");
    fireEvent.change(box, { target: { value: "Three questions only." } });
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    });
    expect(fake.resumed[0][1]).toEqual({ input: "Three questions only." });
  });

  it("Continue without pausing sends none, and the cards' marks go", async () => {
    await startPaused();
    await press("Continue without pausing");
    expect(fake.resumed[0][1]).toEqual({ breakpoints: [] });
    expect(chosenBreakpoints(PATH)).toEqual([]);
  });
});
