// The agents a run pauses before, kept per crew in the window, and what is sent for
// them on start and on resume; the run's messages as a pause shows them.
import { beforeEach, describe, expect, it } from "vitest";
import {
  breakpointStore,
  chosenBreakpoints,
  goOnRequest,
  pausesBefore,
  resumeBreakpoints,
  runMessages,
  shortened,
  startBreakpoints,
  toggleBreakpoint,
} from "./breakpoints";
import { events } from "./fixtures";
import { fromEvents } from "./reducer";
import { runStore } from "./store";

const EXAM = "/crews/exam.yaml";
const OTHER = "/crews/other.yaml";
const names = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

beforeEach(() => {
  breakpointStore.setState({ byCrew: {} });
  runStore.getState().reset();
});

describe("the agents a run pauses before", () => {
  it("are toggled per crew, in the order chosen, and another crew keeps its own", () => {
    toggleBreakpoint(EXAM, "student");
    toggleBreakpoint(EXAM, "teacher");
    toggleBreakpoint(OTHER, "writer");
    expect(chosenBreakpoints(EXAM)).toEqual(["student", "teacher"]);
    expect(pausesBefore(EXAM, "student")).toBe(true);
    expect(pausesBefore(OTHER, "student")).toBe(false);
    toggleBreakpoint(EXAM, "student");
    expect(chosenBreakpoints(EXAM)).toEqual(["teacher"]);
    // A crew never saved has none (a run needs its file).
    expect(chosenBreakpoints(null)).toEqual([]);
  });

  it("are sent when a run starts, and left out when there are none (the request as before)", () => {
    expect(startBreakpoints(EXAM)).toBeUndefined();
    toggleBreakpoint(EXAM, "student");
    expect(startBreakpoints(EXAM)).toEqual(["student"]);
  });

  it("are sent on resume only when the person changed them while the run was paused", () => {
    expect(resumeBreakpoints(["student"], ["student"])).toBeUndefined();
    expect(resumeBreakpoints(["teacher", "student"], ["student", "teacher"])).toBeUndefined();
    expect(resumeBreakpoints(["student", "teacher"], ["student"])).toEqual(["student", "teacher"]);
    // All taken off: none from now on.
    expect(resumeBreakpoints([], ["student"])).toEqual([]);
  });

  it("become the crew's when a run shown live says its set, but not a replay's", () => {
    runStore.getState().begin("run-1", EXAM);
    runStore.getState().apply({ events: events([{ type: "run_started", crew: "Exam", input: "Go." }, { type: "breakpoints_set", agents: ["student"] }]), end: null, lost_from: null });
    expect(chosenBreakpoints(EXAM)).toEqual(["student"]);
    // The run goes on without any: the cards' marks go too.
    runStore.getState().apply({ events: events([{ type: "breakpoints_set", agents: [] }], "run-1", 2), end: null, lost_from: null });
    expect(chosenBreakpoints(EXAM)).toEqual([]);
    // A past run replayed says what it did then, not what the next run does.
    runStore.getState().load(events([{ type: "run_started", crew: "Exam", input: "Go." }, { type: "breakpoints_set", agents: ["teacher"] }], "run-2"), false, EXAM);
    expect(chosenBreakpoints(EXAM)).toEqual([]);
  });
});

describe("the ways on from a pause before an agent's turn", () => {
  it("step one turn: the words (when any) and step, the breakpoints only when changed", () => {
    expect(goOnRequest("step", "  Be brief.  ", ["student"], ["student"])).toEqual({ input: "Be brief.", step: true });
    expect(goOnRequest("step", "", ["student"], ["student"])).toEqual({ step: true });
  });

  it("continue: no step; the set changed while paused goes with it", () => {
    expect(goOnRequest("continue", "", ["student"], ["student"])).toEqual({});
    expect(goOnRequest("continue", "Hi", ["student", "teacher"], ["student"])).toEqual({ input: "Hi", breakpoints: ["student", "teacher"] });
  });

  it("continue without pausing: none from now on", () => {
    expect(goOnRequest("no_pauses", "", ["student"], ["student"])).toEqual({ breakpoints: [] });
  });
});

describe("the run's messages, as the pause shows them", () => {
  it("are the request, each whole reply and the person's answers, oldest first, by who wrote them", () => {
    const view = fromEvents(
      events([
        { type: "run_started", crew: "Exam", input: "Quiz me." },
        { type: "agent_started", agent: "teacher", step: 1 },
        { type: "agent_response", agent: "teacher", content: "Which topic? [WAIT]" },
        { type: "paused", agent: "teacher", signal: "[WAIT]" },
        { type: "run_finished", status: "paused", final_agent: "teacher", handoffs: 0, steps: 1 },
        { type: "resumed", agent: "teacher", input: "Fractions." },
        { type: "agent_started", agent: "student", step: 2 },
        { type: "token", agent: "student", text: "Half of" },
      ]),
    );
    expect(runMessages(view, names).map((m) => [m.who, m.text, m.mine])).toEqual([
      ["You asked", "Quiz me.", true],
      ["Teacher", "Which topic? [WAIT]", false],
      ["You told Teacher", "Fractions.", true],
    ]);
  });

  it("are shortened at a word, with an ellipsis", () => {
    expect(shortened("short", 10)).toBe("short");
    expect(shortened("one two three four five", 16)).toBe("one two three…");
    // (One long word is cut where it must be.)
    expect(shortened("abcdefghijklmnop", 8)).toBe("abcdefgh…");
  });
});
