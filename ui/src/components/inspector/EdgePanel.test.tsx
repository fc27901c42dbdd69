// @vitest-environment jsdom
// The arrow panel against the window's editor store: a route's signal changed
// (checked by the engine first) and deleted; nothing editable while the verdict
// is behind the edits, since the arrow's rule may have moved.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { EdgePanel } from "./EdgePanel";
import { examDocument, open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew(), examDocument()));

const state = () => editorStore.getState();
const QUESTION = "rule:teacher:0:group:exam_round";

describe("EdgePanel", () => {
  it("shows a route in words", () => {
    render(<EdgePanel edgeId={QUESTION} />);
    expect(screen.getByRole("heading").textContent).toBe("Teacher → exam_round");
    expect((screen.getByLabelText("Signal") as HTMLInputElement).value).toBe("[QUESTION]");
    expect(screen.getByText("starts a group working side by side")).toBeTruthy();
  });

  it("refuses a signal name the engine rejects, and applies a good one", async () => {
    render(<EdgePanel edgeId={QUESTION} />);
    const signal = screen.getByLabelText("Signal");
    fireEvent.change(signal, { target: { value: "[ASK" } });
    fireEvent.blur(signal);
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("invalid signal format '[ASK'"));
    expect(state().spec!.routing!.signals!.teacher[0].signal).toBe("[QUESTION]");
    fireEvent.change(signal, { target: { value: "[ASK]" } });
    fireEvent.blur(signal);
    await waitFor(() => expect(state().spec!.routing!.signals!.teacher[0].signal).toBe("[ASK]"));
    // A strict registry gets the new signal with the route's behaviour.
    expect(state().spec!.signals!.at(-1)).toEqual({ name: "[ASK]", behavior: "parallel" });
  });

  it("deletes the route and clears the selection", () => {
    state().select([QUESTION]);
    render(<EdgePanel edgeId={QUESTION} />);
    fireEvent.click(screen.getByRole("button", { name: "Delete this route" }));
    expect(state().spec!.routing!.signals!.teacher).toEqual([{ signal: "[END_EXAM]", target: "" }]);
    expect(state().selection).toEqual([]);
  });

  it("waits for the engine's check before anything can be changed again", () => {
    render(<EdgePanel edgeId={QUESTION} />);
    const description = screen.getByLabelText("What the signal means");
    fireEvent.change(description, { target: { value: "asks a question" } });
    fireEvent.blur(description);
    expect(state().spec!.routing!.signals!.teacher[0].description).toBe("asks a question");
    // No checker in tests: the verdict stays behind the edit.
    expect((screen.getByLabelText("Signal") as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Delete this route" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole("status").textContent).toBe("Checking…");
  });

  it("re-points the group's 'then' arrow to another agent, as one undo step", () => {
    render(<EdgePanel edgeId="next:exam_round:teacher" />);
    fireEvent.change(screen.getByLabelText("Leads to"), { target: { value: "student" } });
    expect(state().spec!.routing!.parallel_groups!.exam_round.next_agent).toBe("student");
    state().undo();
    expect(state().spec!.routing!.parallel_groups!.exam_round.next_agent).toBe("teacher");
  });

  it("explains a 'then' arrow and deleting it sends the work back to the sender", () => {
    render(<EdgePanel edgeId="next:exam_round:teacher" />);
    expect(screen.getByText("where the work goes after a group.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Go back to the sender instead" }));
    expect("next_agent" in state().spec!.routing!.parallel_groups!.exam_round).toBe(false);
  });
});
