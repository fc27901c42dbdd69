// @vitest-environment jsdom
// The signal registry panel against the window's editor store: deleting a signal
// in use is refused with its uses, uses select their arrows, signals are added
// (names checked by the engine) and renamed with their routes.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { SignalsPanel } from "./SignalsPanel";
import { examDocument, open } from "./testing";

vi.mock("../../backend", async () => (await import("./testing")).fakeBackend());

afterEach(cleanup);
beforeEach(() => open(examCrew(), examDocument()));

const state = () => editorStore.getState();
const item = (name: string) => screen.getByRole("listitem", { name });

describe("SignalsPanel", () => {
  it("refuses to delete a signal routes use, and lists those routes", () => {
    const before = state().spec;
    render(<SignalsPanel />);
    fireEvent.click(within(item("[QUESTION]")).getByRole("button", { name: "Delete" }));
    const alert = within(item("[QUESTION]")).getByRole("alert");
    expect(alert.textContent).toContain("'[QUESTION]' is used by 1 connection; remove or change them first");
    expect(within(alert).getByRole("button", { name: "Teacher → exam_round" })).toBeTruthy();
    expect(state().spec).toBe(before);
  });

  it("deletes a signal no route uses", () => {
    open({ ...examCrew(), signals: [...examCrew().signals!, { name: "[HINT]", behavior: "route" }] }, examDocument());
    render(<SignalsPanel />);
    fireEvent.click(within(item("[HINT]")).getByRole("button", { name: "Delete" }));
    expect(state().spec!.signals!.map((s) => s.name)).toEqual(["[QUESTION]", "[END_EXAM]"]);
  });

  it("selects a route's arrow when a use is clicked", () => {
    render(<SignalsPanel />);
    const question = item("[QUESTION]");
    expect(within(question).getByText("Used by 1 route")).toBeTruthy();
    fireEvent.click(within(question).getByRole("button", { name: "Teacher → exam_round" }));
    expect(state().selection).toEqual(["rule:teacher:0:group:exam_round"]);
  });

  it("marks built-in signals, and offers no delete for them", () => {
    render(<SignalsPanel />);
    const done = item("[DONE]");
    expect(within(done).getByText("built in")).toBeTruthy();
    expect(within(done).queryByRole("button", { name: "Delete" })).toBeNull();
  });

  it("adds a signal once the engine accepts its name", async () => {
    render(<SignalsPanel />);
    fireEvent.click(screen.getByRole("button", { name: "Add a signal" }));
    const form = screen.getByRole("form", { name: "New signal" });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "HINT" } });
    expect(await within(form).findByText("invalid signal format 'HINT'")).toBeTruthy(); // as it is typed
    fireEvent.click(within(form).getByRole("button", { name: "Add signal" }));
    await waitFor(() => expect(within(form).getByRole("alert").textContent).toBe("invalid signal format 'HINT'"));
    expect(state().spec!.signals!.length).toBe(2);
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "[HINT]" } });
    fireEvent.change(within(form).getByLabelText("What it does"), { target: { value: "pause" } });
    fireEvent.change(within(form).getByLabelText("What it means"), { target: { value: "asks you for a hint" } });
    fireEvent.click(within(form).getByRole("button", { name: "Add signal" }));
    await waitFor(() =>
      expect(state().spec!.signals!.at(-1)).toEqual({ name: "[HINT]", behavior: "pause", description: "asks you for a hint" }),
    );
  });

  it("renames a signal and the routes using it follow", async () => {
    render(<SignalsPanel />);
    fireEvent.click(within(item("[QUESTION]")).getByRole("button", { name: "Change" }));
    const name = within(item("[QUESTION]")).getByLabelText("Name");
    fireEvent.change(name, { target: { value: "[ASK]" } });
    fireEvent.blur(name);
    await waitFor(() => expect(state().spec!.routing!.signals!.teacher[0].signal).toBe("[ASK]"));
    expect(state().spec!.signals![0].name).toBe("[ASK]");
    // Still being changed, under its new name.
    expect(within(item("[ASK]")).getByRole("button", { name: "Done" })).toBeTruthy();
  });

  it("phases a signal out with a note", () => {
    render(<SignalsPanel />);
    fireEvent.click(within(item("[END_EXAM]")).getByRole("button", { name: "Change" }));
    const note = within(item("[END_EXAM]")).getByLabelText("Being phased out");
    fireEvent.change(note, { target: { value: "Use [END] instead" } });
    fireEvent.blur(note);
    expect(state().spec!.signals![1].deprecated).toBe("Use [END] instead");
    expect(within(item("[END_EXAM]")).getByText("phased out")).toBeTruthy();
  });
});
