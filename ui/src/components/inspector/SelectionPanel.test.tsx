// @vitest-environment jsdom
// Several things selected: a parallel group made of the selected agents, and
// everything deleted in one step (arrows of one agent from the last rule up).
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew, frozen } from "../../editor/fixtures";
import { undoLabel } from "../../editor/history";
import { editorStore } from "../../editor/store";
import { deleteItems } from "../../editor/deleteItems";
import { SelectionPanel } from "./SelectionPanel";
import { examDocument, open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew(), examDocument()));

const state = () => editorStore.getState();

describe("SelectionPanel", () => {
  it("makes a parallel group of the selected agents under the name given", () => {
    render(<SelectionPanel ids={["agent:student", "agent:reporter"]} />);
    fireEvent.click(screen.getByRole("button", { name: "Make a parallel group" }));
    const name = screen.getByLabelText("Group name");
    expect((name as HTMLInputElement).value).toBe("group");
    fireEvent.change(name, { target: { value: "exam_round" } });
    fireEvent.click(screen.getByRole("button", { name: "Make the group" }));
    expect(screen.getByRole("alert").textContent).toBe("There is already a group called 'exam_round'");
    fireEvent.change(name, { target: { value: "pair" } });
    fireEvent.click(screen.getByRole("button", { name: "Make the group" }));
    expect(state().spec!.routing!.parallel_groups!.pair.agents).toEqual(["student", "reporter"]);
    expect(state().selection).toEqual(["group:pair"]);
  });

  it("deletes everything selected as one undo step", () => {
    render(<SelectionPanel ids={["agent:reporter", "rule:teacher:1:end", "end"]} />);
    expect(screen.getByText("1 agent, 1 arrow")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Delete 2 items" }));
    const spec = state().spec!;
    expect(spec.agents.map((a) => a.id)).toEqual(["teacher", "student"]);
    expect(spec.routing!.signals!.teacher.map((r) => r.signal)).toEqual(["[QUESTION]"]);
    expect(undoLabel(state().history)).toBe("Undo: Delete 2 items");
    expect(state().selection).toEqual([]);
  });
});

describe("deleteItems", () => {
  it("removes several arrows of one agent from the last rule up, so each removes its own rule", () => {
    const result = deleteItems(frozen(examCrew()), ["rule:teacher:0:group:exam_round", "rule:teacher:1:end"], examDocument().graph);
    expect(result.ok && result.spec.routing!.signals).toBeUndefined();
  });
});
