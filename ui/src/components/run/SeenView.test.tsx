// @vitest-environment jsdom
// "What Teacher saw" against a stand-in backend: opened from a turn of the
// transcript, a line of the tracker or a card after the run, it asks for the turn's
// step and agent and shows the token bar in proportion and in words, the
// instructions with the run's signal paragraph, the messages with who wrote each and
// the cut ones folded away where they were; a turn of several calls shows each as a
// tab; the backend's refusal is said as it words it; a live run's turn not stored
// yet is asked again; Escape closes it and the focus goes back.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunEvent } from "../../bindings/RunEvent";
import type { StepContext } from "../../bindings/StepContext";
import { examCrew } from "../../editor/fixtures";
import { examRun } from "../../run/fixtures";
import { latestTurn } from "../../run/reducer";
import { closeSeen, openSeen } from "../../run/seen";
import { cutContext, seenCall, toolContext } from "../../run/seenFixtures";
import { SIGNAL_PARAGRAPH } from "../../run/seenWords";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { openLatestSeen } from "./seenFromCard";
import { SeenView } from "./SeenView";
import { Tracker } from "./Tracker";
import { Transcript } from "./Transcript";

const fake = vi.hoisted(() => ({
  /** What each ask answers, in turn (an Error: refused); the last one answers the rest. */
  answers: [] as Array<unknown>,
  asked: [] as Array<[string, number, string | undefined]>,
}));

vi.mock("../../backend", async () => {
  const { BackendError } = await import("../../backend/Backend");
  return {
    backend: {
      stepContext: async (runId: string, step: number, agent?: string) => {
        fake.asked.push([runId, step, agent]);
        const answer = fake.answers.length > 1 ? fake.answers.shift() : fake.answers[0];
        if (answer instanceof Error) throw new BackendError("not_found", answer.message);
        return answer;
      },
    },
  };
});

afterEach(() => {
  cleanup();
  closeSeen();
});
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  Object.assign(fake, { answers: [], asked: [] });
});

/** The exam run, watched live in this window (up to event `to`). */
function live(to = 35) {
  runStore.getState().begin("run-1");
  act(() => runStore.getState().apply({ events: examRun().slice(0, to), end: to >= 35 ? "finished" : null, lost_from: null }));
}

const dialog = () => screen.getByRole("dialog");
const shares = () => [...dialog().querySelectorAll<HTMLElement>(".seen-bar-part")].map((p) => [p.className.replace("seen-bar-part seen-part-", ""), p.dataset.share]);

describe("What Teacher saw, from the transcript", () => {
  it("asks for the turn's step and agent, and shows the bar, the instructions and the messages, the cut ones folded where they were", async () => {
    fake.answers = [cutContext()];
    live();
    render(
      <>
        <Transcript />
        <SeenView />
      </>,
    );
    const buttons = screen.getAllByRole("button", { name: "What Teacher saw" });
    expect(buttons).toHaveLength(3); // the teacher's three turns
    fireEvent.click(buttons[2]);

    expect(within(dialog()).getByRole("heading", { level: 2 }).textContent).toBe("What Teacher saw");
    await waitFor(() => expect(dialog().textContent).toContain("900 of 2,000 tokens"));
    expect(fake.asked).toEqual([["run-1", 7, "teacher"]]);

    // The bar: instructions 310, messages 590 and the cut 420, of a 2,000-token window.
    expect(shares()).toEqual([
      ["instructions", "0.1550"],
      ["messages", "0.2950"],
      ["cut", "0.2100"],
    ]);
    expect(dialog().querySelector(".seen-bar")?.getAttribute("aria-label")).toBe(
      "900 of 2,000 tokens; instructions: about 310; messages shown: about 590; left out: about 420",
    );
    expect(dialog().querySelector(".seen-cut-words")?.textContent).toBe("3 earlier messages were left out (about 420 tokens)");

    // The instructions as its model got them, the run's paragraph about its signals marked.
    const signals = dialog().querySelector(".seen-prompt-signals");
    expect(signals?.textContent).toContain(SIGNAL_PARAGRAPH);
    expect(signals?.textContent).toMatch(/^Added by Crewgraph from its arrows/);
    expect(dialog().querySelector(".seen-prompt-own")?.textContent).toBe("You teach fractions.");

    // The messages: the request, then the cut ones folded away, then the tail.
    const list = dialog().querySelector(".seen-messages") as HTMLElement;
    const items = [...list.children].map((li) => li.className);
    expect(items).toEqual(["seen-message seen-by-person", "seen-cut", "seen-message seen-by-agent"]);
    const cut = list.querySelector(".seen-cut details") as HTMLDetailsElement;
    expect(cut.open).toBe(false);
    expect(cut.querySelector("summary")?.textContent).toBe("Left out by the context window · 3 earlier messages were left out (about 420 tokens)");
    expect([...cut.querySelectorAll(".seen-author")].map((a) => a.textContent)).toEqual(["Teacher", "Student", "Reporter"]);
    expect(list.querySelector(".seen-by-person .seen-author")?.textContent).toBe("You asked");

    // What it said and what it cost, from the run view.
    const said = within(dialog()).getByRole("region", { name: "What Teacher said and what it cost" });
    expect(said.textContent).toContain("Both right: your score is 2/2. That is the end of the exam. [END_EXAM]");
    expect(said.querySelector(".run-signal")?.textContent).toBe("said [END_EXAM] · exact");
    expect(said.querySelector(".seen-cost")?.textContent).toMatch(/^No tokens reported/);
  });

  it("closes with Escape, and the focus goes back to the button pressed", async () => {
    fake.answers = [cutContext()];
    live();
    render(
      <>
        <Transcript />
        <SeenView />
      </>,
    );
    const button = screen.getAllByRole("button", { name: "What Teacher saw" })[2];
    button.focus();
    fireEvent.click(button);
    await waitFor(() => expect(dialog().textContent).toContain("900 of 2,000 tokens"));
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Close");
    fireEvent.keyDown(dialog(), { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it("offers no button on a turn still at work", () => {
    live(3); // the teacher's first turn, streaming
    render(<Transcript />);
    expect(screen.queryByRole("button", { name: "What Teacher saw" })).toBeNull();
  });
});

describe("the calls of a turn", () => {
  it("shows each call as a tab: the first, then after the tool results", async () => {
    fake.answers = [toolContext()];
    live();
    render(<SeenView />);
    const view = runStore.getState().view!;
    act(() => openSeen("run-1", view.turns.find((t) => t.agent === "reporter")!));
    await waitFor(() => expect(screen.getAllByRole("tab")).toHaveLength(2));
    expect(fake.asked).toEqual([["run-1", 3, "reporter"]]);
    const tabs = screen.getAllByRole("tab");
    expect(tabs.map((t) => t.textContent)).toEqual(["1st call", "2nd call · after the tool results"]);
    expect(tabs[0].getAttribute("aria-selected")).toBe("true");
    expect(screen.getByRole("tabpanel").textContent).toContain("60 tokens");
    expect(screen.getByRole("tabpanel").textContent).toContain("Its context window left nothing out.");

    fireEvent.keyDown(tabs[0], { key: "ArrowRight" });
    expect(screen.getAllByRole("tab")[1].getAttribute("aria-selected")).toBe("true");
    const panel = screen.getByRole("tabpanel");
    expect(panel.textContent).toContain("90 tokens");
    expect([...panel.querySelectorAll(".seen-author")].map((a) => a.textContent)).toEqual(["You asked", "Reporter", "calculator answered"]);
    expect(panel.querySelector(".seen-tools")?.textContent).toBe("Asked to use calculator");
  });
});

describe("what the backend says", () => {
  it("says its refusal as it words it (a run recorded before this was kept), asking once for a stored run", async () => {
    const words = "run 'run-1' was recorded before Crewgraph kept what each agent was given, so there is nothing to show; runs from now on keep it";
    fake.answers = [new Error(words)];
    runStore.getState().load(examRun()); // a past run, replayed
    render(<SeenView />);
    act(() => openSeen("run-1", latestTurn(runStore.getState().view!, "student")!));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(words));
    expect(fake.asked).toEqual([["run-1", 5, "student"]]);
  });

  it("asks again for a turn of a live run whose step is not stored yet", async () => {
    fake.answers = [new Error("run 'run-1' has no turn at step 1 (no agent has had a turn yet)"), { run_id: "run-1", step: 1, calls: [seenCall()] } satisfies StepContext];
    live(6);
    render(<SeenView />);
    act(() => openSeen("run-1", runStore.getState().view!.turns[0]));
    await waitFor(() => expect(dialog().textContent).toContain("1,240 of 8,192 tokens"));
    expect(fake.asked).toHaveLength(2);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("waits for a turn at work, and asks once it is over", async () => {
    fake.answers = [{ run_id: "run-1", step: 1, calls: [seenCall()] } satisfies StepContext];
    live(3);
    render(<SeenView />);
    act(() => openSeen("run-1", runStore.getState().view!.turns[0]));
    expect(dialog().textContent).toContain("Teacher is still at work: what it saw shows here once its turn is over.");
    expect(fake.asked).toEqual([]);
    const rest: RunEvent[] = examRun().slice(3, 6);
    act(() => runStore.getState().apply({ events: rest, end: null, lost_from: null }));
    await waitFor(() => expect(dialog().textContent).toContain("1,240 of 8,192 tokens"));
    expect(fake.asked).toEqual([["run-1", 1, "teacher"]]);
  });
});

describe("opened from elsewhere", () => {
  it("a tracker line opens what the agent whose reply led to the move saw", async () => {
    fake.answers = [{ run_id: "run-1", step: 1, calls: [seenCall()] } satisfies StepContext];
    live();
    render(
      <>
        <Tracker />
        <SeenView />
      </>,
    );
    const eyes = screen.getAllByRole("button", { name: "What Teacher saw" });
    fireEvent.click(eyes[0]); // Teacher → exam_round
    await waitFor(() => expect(dialog().textContent).toContain("1,240 of 8,192 tokens"));
    expect(fake.asked).toEqual([["run-1", 1, "teacher"]]);
  });

  it("a card after the run opens its agent's latest turn; Earlier turn and Later turn step through the run", async () => {
    fake.answers = [{ run_id: "run-1", step: 4, calls: [seenCall()] } satisfies StepContext];
    live();
    render(<SeenView />);
    act(() => openLatestSeen("student"));
    await waitFor(() => expect(fake.asked).toEqual([["run-1", 5, "student"]]));
    expect(screen.getByRole("heading", { level: 2 }).textContent).toBe("What Student saw");
    fireEvent.click(screen.getByRole("button", { name: "‹ Earlier turn" }));
    expect(screen.getByRole("heading", { level: 2 }).textContent).toBe("What Teacher saw");
    await waitFor(() => expect(fake.asked.at(-1)).toEqual(["run-1", 4, "teacher"]));
    fireEvent.click(screen.getByRole("button", { name: "Later turn ›" }));
    fireEvent.click(screen.getByRole("button", { name: "Later turn ›" }));
    fireEvent.click(screen.getByRole("button", { name: "Later turn ›" }));
    expect(screen.getByRole("heading", { level: 2 }).textContent).toBe("What Teacher saw");
    expect((screen.getByRole("button", { name: "Later turn ›" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("closes when another run is shown", () => {
    live();
    render(<SeenView />);
    act(() => openLatestSeen("teacher"));
    expect(screen.getByRole("dialog")).toBeTruthy();
    act(() => runStore.getState().begin("run-2"));
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
