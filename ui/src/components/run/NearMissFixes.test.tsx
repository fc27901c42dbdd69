// @vitest-environment jsdom
// The hint after a reply that came close to a signal: its words in the tracker (at
// its place among the moves), under the turn and under the card; its buttons make
// one undoable edit each, named as the button is, and the hint then says the fix
// was made (and offers it again after Undo).
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { undoLabel } from "../../editor/history";
import { examCrew } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";
import { events } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { NearMissNote } from "../nodes/NearMissNote";
import { Tracker } from "./Tracker";
import { Transcript } from "./Transcript";

afterEach(cleanup);
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  runStore.getState().begin("run-1");
  // The teacher misspells its signal; nothing else routes, so the run ends.
  act(() =>
    runStore.getState().apply({
      events: events([
        { type: "run_started", crew: "Fractions exam", input: "Begin." },
        { type: "agent_started", agent: "teacher", step: 1 },
        { type: "agent_response", agent: "teacher", content: "Question 1: what is 1/2 + 1/4? [QUESTON]" },
        {
          type: "route_missed",
          agent: "teacher",
          candidates: [
            { signal: "[QUESTION]", found: "[QUESTON]", kind: "misspelt", distance: 1 },
            { signal: "[END_EXAM]", found: "END EXAM", kind: "no_brackets", distance: 0 },
          ],
        },
        { type: "run_finished", status: "no_route", final_agent: "teacher", handoffs: 0, steps: 1 },
      ]),
      end: null,
      lost_from: null,
    }),
  );
});

const state = () => editorStore.getState();
const teacher = () => state().spec?.agents.find((a) => a.id === "teacher");

describe("the near-miss hint in the tracker", () => {
  it("says what the agent wrote, what came close besides, and offers both fixes as buttons", () => {
    render(<Tracker />);
    const line = screen.getByRole("listitem");
    expect(within(line).getByRole("button", { name: /Teacher wrote \[QUESTON\] — did you mean \[QUESTION\]\?/ })).toBeTruthy();
    expect(line.textContent).toContain("Also close: END EXAM for [END_EXAM]");
    const fixes = within(line).getByRole("group", { name: "Fixes for Teacher's signal" });
    expect(within(fixes).getAllByRole("button").map((b) => b.textContent)).toEqual(["Accept [QUESTON] as [QUESTION]", "Remind Teacher of its signals"]);
  });

  it("Accept adds the alias as one undoable edit; the hint says it was made; Undo offers it again", () => {
    render(<Tracker />);
    fireEvent.click(screen.getByRole("button", { name: "Accept [QUESTON] as [QUESTION]" }));
    expect(state().spec?.signals?.[0].aliases).toEqual(["[QUESTON]"]);
    expect(undoLabel(state().history)).toBe("Undo: Accept [QUESTON] as [QUESTION]");
    expect(state().history.past).toHaveLength(1);
    expect(screen.queryByRole("button", { name: "Accept [QUESTON] as [QUESTION]" })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("✓ [QUESTON] now counts as [QUESTION] — save the crew to keep it.");

    act(() => state().undo());
    expect(state().spec?.signals?.[0].aliases).toBeUndefined();
    expect(screen.getByRole("button", { name: "Accept [QUESTON] as [QUESTION]" })).toBeTruthy();
    expect(screen.queryByRole("status")).toBeNull();
  });

  it("Remind appends the sentence to the agent's instructions once", () => {
    render(<Tracker />);
    fireEvent.click(screen.getByRole("button", { name: "Remind Teacher of its signals" }));
    expect(teacher()?.system_prompt).toBe(
      "You are a patient maths teacher.\n\nEnd every reply with exactly one of these signals, written exactly as shown, in square brackets: [QUESTION], [END_EXAM].\n",
    );
    expect(undoLabel(state().history)).toBe("Undo: Remind Teacher of its signals");
    expect(screen.queryByRole("button", { name: "Remind Teacher of its signals" })).toBeNull();
    expect(screen.getByRole("status").textContent).toMatch(/Teacher's instructions now end with a reminder of its signals/);
  });
});

describe("the near-miss hint elsewhere", () => {
  it("under the turn in the transcript, with the same fixes", () => {
    render(<Transcript />);
    const turn = screen.getByRole("article", { name: "Teacher's turn" });
    expect(turn.textContent).toContain("Teacher wrote [QUESTON] — did you mean [QUESTION]?");
    fireEvent.click(within(turn).getByRole("button", { name: "Accept [QUESTON] as [QUESTION]" }));
    expect(state().spec?.signals?.[0].aliases).toEqual(["[QUESTON]"]);
  });

  it("under the card: the words and the first fix only, then what was done", () => {
    render(<NearMissNote agent="teacher" name="Teacher" />);
    const note = screen.getByRole("group", { name: "Teacher's reply matched no signal" });
    expect(note.textContent).toContain("Teacher wrote [QUESTON] — did you mean [QUESTION]?");
    expect(within(note).getAllByRole("button").map((b) => b.textContent)).toEqual(["Accept [QUESTON] as [QUESTION]"]);
    fireEvent.click(within(note).getByRole("button"));
    expect(within(note).queryAllByRole("button")).toHaveLength(0);
    expect(within(note).getByRole("status").textContent).toMatch(/\[QUESTON\] now counts as \[QUESTION\]/);
    // (Short once made: what was done, not the words again.)
    expect(note.textContent).not.toContain("did you mean");
  });

  it("under the card, the first fix is the card's: a reminder made earlier does not stand for accepting the spelling", () => {
    act(() => state().edit("Remind Teacher of its signals", (s) => ({ ok: true, spec: { ...s, agents: s.agents.map((a) => (a.id === "teacher" ? { ...a, system_prompt: "End every reply with exactly one of these signals, written exactly as shown, in square brackets: [QUESTION], [END_EXAM]." } : a)) } })));
    render(<NearMissNote agent="teacher" name="Teacher" />);
    const note = screen.getByRole("group", { name: "Teacher's reply matched no signal" });
    expect(note.textContent).toContain("did you mean [QUESTION]?");
    expect(within(note).getAllByRole("button").map((b) => b.textContent)).toEqual(["Accept [QUESTON] as [QUESTION]"]);
  });

  it("not on a card whose latest reply routed; a fix the crew as edited cannot take is not offered", () => {
    render(<NearMissNote agent="student" name="Student" />);
    expect(screen.queryByRole("group")).toBeNull();
    cleanup();
    act(() => state().edit("Remove Teacher", (s) => ({ ok: true, spec: { ...s, agents: s.agents.filter((a) => a.id !== "teacher") } })));
    render(<Tracker />);
    // (No agent to remind in the file: the spelling can still be accepted.)
    expect(within(screen.getByRole("group", { name: "Fixes for Teacher's signal" })).getAllByRole("button").map((b) => b.textContent)).toEqual([
      "Accept [QUESTON] as [QUESTION]",
    ]);
  });
});
