// @vitest-environment jsdom
// The inspector shows the panel for what is selected; the "Add an agent" dialog
// adds where it was asked and closes with Escape.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { EditorInspector, NewAgentDialog } from "./EditorInspector";
import { examDocument, open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew(), examDocument()));

const state = () => editorStore.getState();
const show = (ids: string[]) => act(() => state().select(ids));

describe("EditorInspector", () => {
  it("shows the panel for what is selected", () => {
    render(<EditorInspector />);
    expect(screen.getByRole("tab", { name: "Crew" })).toBeTruthy();
    show(["agent:student"]);
    expect(screen.getByRole("region", { name: "Agent Student" })).toBeTruthy();
    show(["group:exam_round"]);
    expect(screen.getByRole("region", { name: "Group exam_round" })).toBeTruthy();
    show(["rule:teacher:1:end"]);
    expect(screen.getByRole("heading").textContent).toBe("Teacher → End");
    show(["end"]);
    expect(screen.getByText(/A run that reaches End is finished/)).toBeTruthy();
    show(["agent:student", "agent:reporter"]);
    expect(screen.getByRole("region", { name: "Selection" })).toBeTruthy();
  });

  it("keeps the agent form on the agent when its id is renamed", () => {
    show(["agent:student"]);
    render(<EditorInspector />);
    const id = screen.getByLabelText("Id");
    fireEvent.change(id, { target: { value: "pupil" } });
    fireEvent.keyDown(id, { key: "Enter" });
    expect(state().selection).toEqual(["agent:pupil"]);
    expect((screen.getByLabelText("Id") as HTMLInputElement).value).toBe("pupil");
  });
});

describe("NewAgentDialog", () => {
  it("adds the agent where it was asked, then closes", () => {
    const onClose = vi.fn();
    render(<NewAgentDialog onClose={onClose} position={{ x: 5, y: 6 }} />);
    expect(screen.getByRole("dialog", { name: "Add an agent" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Coach" } });
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(state().spec!.agents.at(-1)).toEqual({ id: "coach", name: "Coach" });
    expect(state().positions["agent:coach"]).toEqual({ x: 5, y: 6 });
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("closes with Escape and adds nothing", () => {
    const onClose = vi.fn();
    const before = state().spec;
    render(<NewAgentDialog onClose={onClose} />);
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Coach" } });
    fireEvent.keyDown(screen.getByLabelText("Name"), { key: "Escape" });
    expect(onClose).toHaveBeenCalledOnce();
    expect(state().spec).toBe(before);
  });
});
