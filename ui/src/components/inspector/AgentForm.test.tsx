// @vitest-environment jsdom
// The agent form against the window's editor store: what it refuses (and leaves
// unchanged), what it applies and when, and what a new agent becomes.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ProblemView } from "../../bindings/ProblemView";
import { crewDocument, examCrew } from "../../editor/fixtures";
import { undoLabel } from "../../editor/history";
import { editorStore } from "../../editor/store";
import { resetModels } from "../../models/store";
import { AgentForm } from "./AgentForm";
import { OTHER } from "./ModelPicker";
import { fakeModels, fastModel, open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => {
  fakeModels.list = [fastModel];
  resetModels();
  open(examCrew());
});

const state = () => editorStore.getState();
const teacher = () => state().spec!.agents.find((a) => a.id === "teacher")!;
const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const leave = (label: string) => fireEvent.blur(screen.getByLabelText(label));

describe("a new agent", () => {
  it("refuses an empty id inline and leaves the crew unchanged", () => {
    const before = state().spec;
    render(<AgentForm agentId={null} />);
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(screen.getByRole("alert").textContent).toBe("Every agent needs an id");
    expect(state().spec).toBe(before);
  });

  it("drops the empty-id refusal once the name fills the id in", () => {
    // Issue 16: the Id field's error stayed after the id was filled.
    render(<AgentForm agentId={null} />);
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(screen.getByRole("alert").textContent).toBe("Every agent needs an id");
    type("Name", "Grader");
    expect((screen.getByLabelText("Id") as HTMLInputElement).value).toBe("grader");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("offers what happens without a signal only when the crew routes by signals", () => {
    const { unmount } = render(<AgentForm agentId="student" />);
    expect(screen.queryByText("If no signal matches, hand off to")).not.toBeNull();
    unmount();
    // Under scoring the supervisor picks by words: a reply's signals do not route.
    open({ ...examCrew(), routing: { strategy: "scoring" } });
    render(<AgentForm agentId="student" />);
    expect(screen.queryByText("If no signal matches, hand off to")).toBeNull();
    expect(screen.queryByText("Waits for you when no signal matches")).toBeNull();
  });

  it("refuses an id another agent has, and one with a space", () => {
    const before = state().spec;
    render(<AgentForm agentId={null} />);
    type("Id", "student");
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(screen.getByRole("alert").textContent).toBe("There is already an agent called 'student'");
    type("Id", "head teacher");
    expect(screen.queryByRole("alert")).toBeNull(); // typing clears the refusal
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(screen.getByRole("alert").textContent).toMatch(/may only use letters, digits/);
    expect(state().spec).toBe(before);
  });

  it("is added with an id made from its name, placed where asked, selected, and the form closes", () => {
    const onClose = vi.fn();
    render(<AgentForm agentId={null} onClose={onClose} position={{ x: 40, y: 80 }} />);
    type("Name", "Grader");
    type("Role", "Marks the answers");
    expect((screen.getByLabelText("Id") as HTMLInputElement).value).toBe("grader");
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    const added = state().spec!.agents.find((a) => a.id === "grader");
    // Only what was filled in is written: no empty strings, lists or false flags.
    expect(added).toEqual({ id: "grader", name: "Grader", role: "Marks the answers" });
    expect(state().selection).toEqual(["agent:grader"]);
    expect(state().positions["agent:grader"]).toEqual({ x: 40, y: 80 });
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("is not added while its temperature is out of range", () => {
    const before = state().spec;
    render(<AgentForm agentId={null} />);
    type("Name", "Grader");
    type("Temperature", "2.5");
    expect(screen.getByRole("alert").textContent).toMatch(/from 0 .* to 2/);
    fireEvent.click(screen.getByRole("button", { name: "Add agent" }));
    expect(state().spec).toBe(before);
  });
});

describe("an agent of the crew", () => {
  it("applies a field when it is left, not on every keystroke, as one named undo step", () => {
    render(<AgentForm agentId="teacher" />);
    type("Role", "Asks the questions");
    expect(teacher().role).toBe("Asks one question at a time");
    leave("Role");
    expect(teacher().role).toBe("Asks the questions");
    expect(undoLabel(state().history)).toBe("Undo: Change Teacher's role");
  });

  it("shows a bad temperature inline and does not apply it", () => {
    render(<AgentForm agentId="teacher" />);
    type("Temperature", "3");
    expect(screen.getByRole("alert").textContent).toMatch(/from 0 .* to 2/);
    leave("Temperature");
    expect(teacher().temperature).toBe(0.3);
    type("Temperature", "1.2");
    expect(screen.queryByRole("alert")).toBeNull();
    fireEvent.keyDown(screen.getByLabelText("Temperature"), { key: "Enter" });
    expect(teacher().temperature).toBe(1.2);
    type("Temperature", "");
    leave("Temperature");
    expect("temperature" in teacher()).toBe(false); // empty: the model's default
  });

  it("refuses a taken id with the edit's words and keeps the crew as it was", () => {
    const before = state().spec;
    render(<AgentForm agentId="teacher" />);
    type("Id", "student");
    leave("Id");
    expect(screen.getByRole("alert").textContent).toBe("There is already an agent called 'student'");
    type("Id", "");
    leave("Id");
    expect(screen.getByRole("alert").textContent).toBe("Every agent needs an id");
    expect(state().spec).toBe(before);
  });

  it("renames its id and every route, group and signal naming it follows", () => {
    state().select(["agent:teacher"]);
    render(<AgentForm agentId="teacher" />);
    type("Id", "tutor");
    fireEvent.keyDown(screen.getByLabelText("Id"), { key: "Enter" });
    const spec = state().spec!;
    expect(spec.agents.map((a) => a.id)).toEqual(["tutor", "student", "reporter"]);
    expect(spec.entry_point).toBe("tutor");
    expect(Object.keys(spec.routing!.signals!)).toEqual(["tutor"]);
    expect(spec.routing!.parallel_groups!.exam_round.next_agent).toBe("tutor");
    expect(spec.signals!.map((s) => s.allowed_agents)).toEqual([["tutor"], ["tutor"]]);
    expect(state().selection).toEqual(["agent:tutor"]);
  });

  it("adds tags with Enter or a comma, removes them with × or Backspace", () => {
    render(<AgentForm agentId="teacher" />);
    const tags = screen.getByLabelText("Tags");
    fireEvent.change(tags, { target: { value: "algebra" } });
    fireEvent.keyDown(tags, { key: "Enter" });
    expect(teacher().tags).toEqual(["math", "exam", "fractions", "algebra"]);
    fireEvent.change(tags, { target: { value: "geometry," } });
    expect(teacher().tags).toEqual(["math", "exam", "fractions", "algebra", "geometry"]);
    fireEvent.click(screen.getByRole("button", { name: "Remove exam" }));
    expect(teacher().tags).toEqual(["math", "fractions", "algebra", "geometry"]);
    fireEvent.keyDown(tags, { key: "Backspace" });
    expect(teacher().tags).toEqual(["math", "fractions", "algebra"]);
    expect(screen.queryByRole("button", { name: "Remove geometry" })).toBeNull();
  });

  it("sets fallback agents and the finishing flag from checkboxes", () => {
    render(<AgentForm agentId="teacher" />);
    fireEvent.click(screen.getByLabelText("Student (student)"));
    expect(teacher().handoff_targets).toEqual(["student"]);
    fireEvent.click(screen.getByLabelText("Finishes the run when it is done"));
    expect(teacher().is_terminal).toBe(true);
    fireEvent.click(screen.getByLabelText("Finishes the run when it is done"));
    expect("is_terminal" in teacher()).toBe(false);
  });

  it("picks a model of the settings, or any provider/model typed after Other…", async () => {
    render(<AgentForm agentId="teacher" />);
    await screen.findByRole("option", { name: "fast (openai) · not checked yet · the default" });
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "fast" } });
    expect(teacher().model).toBe("fast");
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: OTHER } });
    type("Other model", "gpt-4o");
    expect(screen.getByRole("alert").textContent).toMatch(/provider\/model/);
    type("Other model", "openai/gpt-4o");
    leave("Other model");
    expect(teacher().model).toBe("openai/gpt-4o");
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "" } });
    expect("model" in teacher()).toBe(false); // the default model
  });

  it("shows what each model's check found in the picker", async () => {
    fakeModels.list = [
      { ...fastModel, check: { answers: true, context_window: 8192, context_source: "reported by llama.cpp", tools: false, structured: true, checked_at: 1 } },
    ];
    resetModels();
    render(<AgentForm agentId="teacher" />);
    expect(await screen.findByRole("option", { name: "fast (openai) · 8,192-token window · no tools · the default" })).toBeTruthy();
    expect(screen.getByRole("option", { name: "Default model: fast (openai) · 8,192-token window · no tools" })).toBeTruthy();
  });

  it("warns on the agent when its model cannot call the tools it has", async () => {
    fakeModels.list = [{ ...fastModel, check: { answers: true, tools: false, checked_at: 1 } }];
    resetModels();
    render(<AgentForm agentId="teacher" />);
    const shown = (await screen.findByText("This agent's tools won't work on fast: it cannot call tools. Pick another model.")).closest("li")!;
    expect(shown.className).toContain("warning");
  });

  it("sets the longest reply as a whole number of tokens, and empties it back to the model's own", () => {
    render(<AgentForm agentId="teacher" />);
    type("Longest reply", "0");
    expect(screen.getByRole("alert").textContent).toBe("The longest reply is a whole number of tokens, 1 or more");
    leave("Longest reply");
    expect("max_tokens" in teacher()).toBe(false);
    type("Longest reply", "256");
    leave("Longest reply");
    expect(teacher().max_tokens).toBe(256);
    expect(undoLabel(state().history)).toBe("Undo: Change Teacher's longest reply");
    type("Longest reply", "");
    leave("Longest reply");
    expect("max_tokens" in teacher()).toBe(false);
  });

  it("takes a change back with Escape", () => {
    render(<AgentForm agentId="teacher" />);
    type("Name", "Professor");
    fireEvent.keyDown(screen.getByLabelText("Name"), { key: "Escape" });
    leave("Name");
    expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("Teacher");
    expect(teacher().name).toBe("Teacher");
  });

  it("shows its problems in plain words, with the exact message on hover", () => {
    const problem = {
      diagnostic: {
        severity: "warning",
        message: "agent 'teacher' has no way out",
        plain: "The teacher has no way to finish or hand off",
        location: null,
        subject: { kind: "agent", agent: "teacher" },
      },
      targets: ["agent:teacher"],
    } as unknown as ProblemView;
    open(examCrew(), crewDocument("exam", [problem]));
    render(<AgentForm agentId="teacher" />);
    const shown = screen.getByText("The teacher has no way to finish or hand off").closest("li")!;
    expect(shown.getAttribute("title")).toBe("agent 'teacher' has no way out");
    expect(shown.className).toContain("warning");
  });

  it("shows what Crewgraph appends to its prompt about signals", async () => {
    render(<AgentForm agentId="teacher" />);
    expect(await screen.findByText("When you are done, teacher, write [DONE].")).toBeTruthy();
  });
});
