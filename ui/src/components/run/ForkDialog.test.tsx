// @vitest-environment jsdom
// "Try another reply" against a stand-in backend: a turn of a finished run offers it
// (a live run's turns do not); the dialog holds the agent's reply to edit, its
// signals as chips that put the chosen signal at the end in place of the one it
// ended with, and how the rest runs (Simulate with the crew's script, as the run
// panel offers it); Run from here forks at the reply's seq; a refusal is said in the
// backend's words, and a crew changed since offers "Run it on the version it ran"
// (on_revision); the new run is then shown, and the dialog closes.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ForkRequest } from "../../backend/Backend";
import { examCrew } from "../../editor/fixtures";
import { closeFork } from "../../run/fork";
import { examRun } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { ForkView } from "./ForkDialog";
import { Transcript } from "./Transcript";

const fake = vi.hoisted(() => ({
  forks: [] as unknown[],
  /** What each fork answers, in turn (an Error: refused). */
  answers: [] as unknown[],
  watched: [] as unknown[],
}));

vi.mock("../../backend", async () => {
  const { BackendError } = await import("../../backend/Backend");
  return {
    backend: {
      listModels: async () => [],
      crewScripts: async () => ["/home/ana/scripts/exam.yaml"],
      forkRun: async (request: ForkRequest) => {
        fake.forks.push(request);
        const answer = fake.answers.shift();
        if (answer instanceof Error) throw new BackendError("invalid_input", answer.message);
        return answer;
      },
      watchRun: async (runId: string) => {
        fake.watched.push(runId);
      },
    },
  };
});

const PATH = "/home/ana/crews/exam.yaml";
const CHANGED =
  "the crew file changed since run 'run-1' ran, so its replies may not fit it: fork it on the version it ran (revision 2) with --on-revision (on_revision: true)";

afterEach(() => {
  cleanup();
  closeFork();
});
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  Object.assign(fake, { forks: [], answers: [], watched: [] });
});

/** The exam run, watched in this window up to event `to` (35: the whole run). */
function watched(to = 35) {
  runStore.getState().begin("run-1", PATH);
  act(() => runStore.getState().apply({ events: examRun().slice(0, to), end: to >= 35 ? "finished" : null, lost_from: null }));
}

function openOnTeachersFirstTurn() {
  render(
    <>
      <Transcript />
      <ForkView />
    </>,
  );
  const buttons = screen.getAllByRole("button", { name: "Try another reply" });
  // The teacher's three turns, the student's two and the reporter's two.
  expect(buttons).toHaveLength(7);
  fireEvent.click(buttons[0]);
  return screen.getByRole("dialog");
}

const reply = () => screen.getByLabelText("What Teacher says instead") as HTMLTextAreaElement;
const runFromHere = () => screen.getByRole("button", { name: "Run from here" }) as HTMLButtonElement;

describe("Try another reply", () => {
  it("is offered on the turns of a run that is over, not while it goes on", () => {
    watched(20);
    render(<Transcript />);
    expect(screen.queryByRole("button", { name: "Try another reply" })).toBeNull();
  });

  it("holds the reply to edit, offers the agent's signals, and runs on from the reply's seq with the crew's script", async () => {
    watched();
    const dialog = openOnTeachersFirstTurn();
    expect(within(dialog).getByRole("heading", { level: 2 }).textContent).toBe("Try another reply for Teacher");
    expect(reply().value).toBe("Question 1: what is 1/2 + 1/4? [QUESTION]");
    expect(document.activeElement).toBe(reply());

    // A signal chip: put at the end, in place of the one the reply ended with.
    const chips = within(dialog).getByRole("group", { name: "Teacher's signals" });
    fireEvent.click(within(chips).getByRole("button", { name: "[END_EXAM]" }));
    expect(reply().value).toBe("Question 1: what is 1/2 + 1/4? [END_EXAM]");
    // Edited by hand.
    fireEvent.change(reply(), { target: { value: "No questions today. [END_EXAM]" } });

    // How the rest runs: the run had no tokens, so Simulate, with the crew's script.
    expect((within(dialog).getByLabelText("Model") as HTMLSelectElement).selectedOptions[0].textContent).toBe("Simulate (replies from a script)");
    await waitFor(() => expect(within(dialog).getByText("exam.yaml")).toBeTruthy());

    fake.answers = [{ run_id: "run-2", events: "" }];
    await act(async () => {
      fireEvent.click(runFromHere());
    });
    // The teacher's first reply is event 3 of the run.
    // (At the crew's pace: "as a model would", the default.)
    expect(fake.forks).toHaveLength(1);
    expect(fake.forks[0]).toMatchObject({ id: "run-1", at: 3, reply: "No questions today. [END_EXAM]", script_file: "/home/ana/scripts/exam.yaml", pace: "readable" });
    // The new run is shown and watched as a started run is; the dialog is gone.
    expect(fake.watched).toEqual(["run-2"]);
    expect(runStore.getState().view?.runId).toBe("run-2");
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("says a refusal in the backend's words; a crew changed since offers to run it on the version it ran", async () => {
    watched();
    const dialog = openOnTeachersFirstTurn();
    await waitFor(() => expect(within(dialog).getByText("exam.yaml")).toBeTruthy());
    fake.answers = [new Error(CHANGED), { run_id: "run-3", events: "" }];
    await act(async () => {
      fireEvent.click(runFromHere());
    });
    const alert = within(dialog).getByRole("alert");
    expect(alert.textContent).toContain("The crew file changed since run 'run-1' ran, so its replies may not fit it. The version it ran is kept as revision 2.");
    expect(alert.textContent).not.toContain("--on-revision");
    await act(async () => {
      fireEvent.click(within(alert).getByRole("button", { name: "Run it on the version it ran" }));
    });
    expect(fake.forks).toHaveLength(2);
    expect(fake.forks[1]).toMatchObject({ id: "run-1", at: 3, on_revision: true });
    expect(runStore.getState().view?.runId).toBe("run-3");
  });

  it("a refusal without a way on is said as it came, and the dialog stays to try again", async () => {
    watched();
    const dialog = openOnTeachersFirstTurn();
    await waitFor(() => expect(within(dialog).getByText("exam.yaml")).toBeTruthy());
    fake.answers = [new Error("'Fractions exam' is routed by a model: forking a run of it is not possible yet (its routing decisions are not given again)")];
    await act(async () => {
      fireEvent.click(runFromHere());
    });
    expect(within(dialog).getByRole("alert").textContent).toBe(
      "'Fractions exam' is routed by a model: forking a run of it is not possible yet (its routing decisions are not given again).",
    );
    expect(within(dialog).queryByRole("button", { name: "Run it on the version it ran" })).toBeNull();
    expect(runFromHere().disabled).toBe(false);
  });

  it("needs words: an empty reply cannot run, and Escape closes the dialog", () => {
    watched();
    openOnTeachersFirstTurn();
    fireEvent.change(reply(), { target: { value: "  " } });
    expect(runFromHere().disabled).toBe(true);
    expect(screen.getByText("Write what Teacher says instead.")).toBeTruthy();
    fireEvent.keyDown(reply(), { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
