// @vitest-environment jsdom
// The crew panel and its pure edits: first agent, the handoff limit (checked before
// it is applied), routing strategy, and the switch to the signal registry.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew, frozen, quizCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { CrewPanel } from "./CrewPanel";
import { updateCrew } from "../../editor/crew";
import { open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew()));

const state = () => editorStore.getState();

describe("CrewPanel", () => {
  it("changes the first agent and the routing strategy", () => {
    render(<CrewPanel />);
    fireEvent.change(screen.getByLabelText("First agent"), { target: { value: "student" } });
    expect(state().spec!.entry_point).toBe("student");
    fireEvent.change(screen.getByLabelText("How work is routed"), { target: { value: "llm" } });
    expect(state().spec!.routing!.strategy).toBe("llm");
    expect(screen.getByText("A router model decides which agent works next.")).toBeTruthy();
  });

  it("shows a bad handoff limit inline and does not apply it", () => {
    render(<CrewPanel />);
    const most = screen.getByLabelText("Handoff limit");
    fireEvent.change(most, { target: { value: "0" } });
    expect(screen.getByRole("alert").textContent).toBe("The handoff limit is a whole number, 1 or more");
    fireEvent.blur(most);
    expect(state().spec!.max_handoffs).toBe(12);
    fireEvent.change(most, { target: { value: "20" } });
    fireEvent.blur(most);
    expect(state().spec!.max_handoffs).toBe(20);
  });

  it("switches to the signals with its tab", () => {
    render(<CrewPanel />);
    fireEvent.click(screen.getByRole("tab", { name: "Signals" }));
    expect(screen.getByRole("tab", { name: "Signals" }).getAttribute("aria-selected")).toBe("true");
    expect(screen.getByRole("region", { name: "Signals" })).toBeTruthy();
  });
});

describe("updateCrew", () => {
  it("writes nothing for the strategy a crew without one already has", () => {
    const quiz = frozen(quizCrew());
    const result = updateCrew(quiz, { strategy: "signals" });
    expect(result.ok && result.spec.routing).toBe(quiz.routing);
  });

  it("refuses an empty name, an unknown first agent and a zero limit", () => {
    const exam = frozen(examCrew());
    expect(updateCrew(exam, { name: " " })).toEqual({ ok: false, error: "The crew needs a name" });
    expect(updateCrew(exam, { entry_point: "ghost" })).toEqual({ ok: false, error: "There is no agent called 'ghost'" });
    expect(updateCrew(exam, { max_handoffs: 0 }).ok).toBe(false);
  });

  it("removes the handoff limit when it is emptied, and keeps key order otherwise", () => {
    const exam = frozen(examCrew());
    const cleared = updateCrew(exam, { max_handoffs: null });
    expect(cleared.ok && "max_handoffs" in cleared.spec).toBe(false);
    const renamed = updateCrew(exam, { name: "Quiz" });
    expect(renamed.ok && Object.keys(renamed.spec)).toEqual(Object.keys(exam));
  });
});
