// @vitest-environment jsdom
// The group panel against the window's editor store: time limit (checked before
// it is applied), next agent, members, deleting.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { undoLabel } from "../../editor/history";
import { editorStore } from "../../editor/store";
import { GroupPanel, timeoutProblem } from "./GroupPanel";
import { open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew()));

const state = () => editorStore.getState();
const group = () => state().spec!.routing!.parallel_groups!.exam_round;

describe("GroupPanel", () => {
  it("changes the time limit, and refuses one that is not a time", () => {
    render(<GroupPanel groupId="exam_round" />);
    const limit = screen.getByLabelText("Time limit");
    fireEvent.change(limit, { target: { value: "soon" } });
    expect(screen.getByRole("alert").textContent).toBe("Write a time like 30s, 2m or 1m 30s");
    fireEvent.blur(limit);
    expect(group().timeout).toBe("30s");
    fireEvent.change(limit, { target: { value: "2m" } });
    fireEvent.blur(limit);
    expect(group().timeout).toBe("2m");
    expect(undoLabel(state().history)).toBe("Undo: Change exam_round's time limit");
  });

  it("continues with the agent picked, or goes back to the sender when none is", () => {
    render(<GroupPanel groupId="exam_round" />);
    const next = screen.getByLabelText("Then continue with");
    fireEvent.change(next, { target: { value: "reporter" } });
    expect(group().next_agent).toBe("reporter");
    fireEvent.change(next, { target: { value: "" } });
    expect("next_agent" in group()).toBe(false);
  });

  it("removes and adds members, and waits for every member or not", () => {
    render(<GroupPanel groupId="exam_round" />);
    fireEvent.click(screen.getByRole("button", { name: "Remove Reporter from the group" }));
    expect(group().agents).toEqual(["student"]);
    fireEvent.change(screen.getByLabelText("Add member"), { target: { value: "reporter" } });
    expect(group().agents).toEqual(["student", "reporter"]);
    fireEvent.click(screen.getByLabelText("Wait for every member"));
    expect(group().wait_for_all).toBe(false);
  });

  it("renames the group and the routes to it follow; deleting it clears the selection", () => {
    state().select(["group:exam_round"]);
    const { rerender } = render(<GroupPanel groupId="exam_round" />);
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "round" } });
    fireEvent.blur(screen.getByLabelText("Name"));
    expect(state().spec!.routing!.signals!.teacher[0].target).toBe("round");
    expect(state().selection).toEqual(["group:round"]);
    rerender(<GroupPanel groupId="round" />);
    fireEvent.click(screen.getByRole("button", { name: "Delete group" }));
    expect(state().spec!.routing!.parallel_groups).toBeUndefined();
    expect(state().selection).toEqual([]);
  });
});

describe("timeoutProblem", () => {
  it("accepts what the engine reads and refuses the rest", () => {
    for (const good of ["", "30s", "2m", "1m 30s", "45", "1.5", "500ms", "1h"]) expect(timeoutProblem(good), good).toBeNull();
    for (const bad of ["soon", "30 parsecs", "-5", "s"]) expect(timeoutProblem(bad), bad).not.toBeNull();
    expect(timeoutProblem("0s")).toBe("The time limit must be more than zero");
  });
});
