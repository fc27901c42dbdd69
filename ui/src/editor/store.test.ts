import { describe, expect, it, vi } from "vitest";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ProblemView } from "../bindings/ProblemView";
import { addAgent, removeAgents, renameAgent } from "./agents";
import { copyAgents, pasteAgents } from "./clipboard";
import { connect } from "./edges";
import { crewDocument, examCrew } from "./fixtures";
import { undoLabel } from "./history";
import { createEditorStore, problemsFor } from "./store";

const positions = { "agent:teacher": { x: 0, y: 0 }, "agent:student": { x: 300, y: 0 } };

function openExam(document: CrewDocument | null = crewDocument("exam")) {
  const store = createEditorStore();
  store.getState().load({ path: "/crews/exam.yaml", layout: "file", spec: examCrew(), document, positions });
  return store;
}

/** A checker whose answers the test gives, one pending promise per call. */
function controlledChecker() {
  const calls: { spec: CrewSpec; resolve: (doc: CrewDocument) => void; reject: (error: unknown) => void }[] = [];
  const check = vi.fn(
    (spec: CrewSpec) =>
      new Promise<CrewDocument>((resolve, reject) => {
        calls.push({ spec, resolve, reject });
      }),
  );
  return { calls, check };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("editing", () => {
  it("applies an accepted edit as one undo step and marks the crew changed", () => {
    const store = openExam();
    const result = store.getState().edit("add Grader", (spec) => addAgent(spec, { id: "grader", name: "Grader" }));
    expect(result.ok).toBe(true);
    const state = store.getState();
    expect(state.spec!.agents.map((a) => a.id)).toEqual(["teacher", "student", "reporter", "grader"]);
    expect(state.dirty).toBe(true);
    expect(undoLabel(state.history)).toBe("Undo: add Grader");
  });

  it("changes nothing on a refusal and hands the refusal back", () => {
    const store = openExam();
    const before = store.getState();
    const result = store.getState().edit("add Student", (spec) => addAgent(spec, { id: "student" }));
    expect(result).toEqual({ ok: false, error: "There is already an agent called 'student'" });
    const after = store.getState();
    expect(after.spec).toBe(before.spec);
    expect(after.history).toBe(before.history);
    expect(after.dirty).toBe(false);
  });

  it("refuses to edit when no crew is open", () => {
    const store = createEditorStore();
    expect(store.getState().edit("x", (spec) => addAgent(spec, { id: "a" }))).toEqual({ ok: false, error: "No crew is open" });
  });

  it("moves positions and the selection along with a renamed node", () => {
    const store = openExam();
    store.getState().select(["agent:teacher", "rule:teacher:1:end"]);
    store.getState().edit("rename teacher", (spec) => renameAgent(spec, "teacher", "examiner"));
    const state = store.getState();
    expect(state.positions).toEqual({ "agent:examiner": { x: 0, y: 0 }, "agent:student": { x: 300, y: 0 } });
    expect(state.selection).toEqual(["agent:examiner", "rule:teacher:1:end"]);
    store.getState().undo();
    expect(store.getState().positions).toEqual(positions);
  });

  it("places a new node in the same undo step as the edit that adds it", () => {
    const store = openExam();
    store.getState().edit("add Grader", (spec) => addAgent(spec, { id: "grader" }), {
      positions: { "agent:grader": { x: 50, y: 400 } },
    });
    expect(store.getState().positions["agent:grader"]).toEqual({ x: 50, y: 400 });
    store.getState().undo();
    expect(store.getState().positions).toEqual(positions);
    expect(store.getState().history.past).toHaveLength(0);
  });

  it("places pasted agents under the ids the paste chose, in the paste's undo step", () => {
    const store = openExam();
    const payload = copyAgents(store.getState().spec!, ["teacher"]);
    const result = store.getState().edit("paste", (spec) => pasteAgents(spec, payload), {
      positions: (pasted) => Object.fromEntries(Object.values(pasted.ids).map((id) => [`agent:${id}`, { x: 40, y: 40 }])),
    });
    expect(result.ok).toBe(true);
    expect(store.getState().positions["agent:teacher_2"]).toEqual({ x: 40, y: 40 });
    expect(store.getState().history.past).toHaveLength(1);
  });

  it("hands back the edit's own result (a drawn edge's rule)", () => {
    const store = openExam();
    const result = store.getState().edit("connect", (spec) => connect(spec, { from: "teacher", to: { kind: "end", agent: null, group: null }, signal: "[END]" }));
    expect(result.ok && "rule" in result && result.rule).toEqual({ agent: "teacher", index: 2 });
  });
});

describe("moving nodes", () => {
  it("records one undo step per drag, named after the node", () => {
    const store = openExam();
    store.getState().move({ "agent:teacher": { x: 10, y: 20 } });
    expect(undoLabel(store.getState().history)).toBe("Undo: move Teacher");
    expect(store.getState().dirty).toBe(true);
    store.getState().move({ "agent:teacher": { x: 10, y: 20 } }); // no change: no step
    store.getState().move({ "agent:teacher": { x: 0, y: 0 }, "agent:student": { x: 1, y: 1 } });
    expect(store.getState().history.past.map((s) => s.label)).toEqual(["move Teacher", "move 2 nodes"]);
    store.getState().undo();
    expect(store.getState().positions["agent:teacher"]).toEqual({ x: 10, y: 20 });
  });
});

describe("dirty", () => {
  it("clears when undoing back to the saved crew, and returns on redo", () => {
    const store = openExam();
    store.getState().edit("remove Reporter", (spec) => removeAgents(spec, ["reporter"]));
    store.getState().move({ "agent:student": { x: 5, y: 5 } });
    expect(store.getState().dirty).toBe(true);
    store.getState().undo();
    expect(store.getState().dirty).toBe(true);
    store.getState().undo();
    expect(store.getState().dirty).toBe(false);
    store.getState().redo();
    expect(store.getState().dirty).toBe(true);
  });

  it("compares with the crew as saved, not as opened", () => {
    const store = openExam();
    store.getState().edit("add Grader", (spec) => addAgent(spec, { id: "grader" }));
    store.getState().markSaved({ path: "/crews/exam.yaml", layout: "file" });
    expect(store.getState().dirty).toBe(false);
    store.getState().undo();
    expect(store.getState().dirty).toBe(true);
    store.getState().redo();
    expect(store.getState().dirty).toBe(false);
  });

  it("stays set when edits followed what was saved", () => {
    const store = openExam();
    store.getState().edit("add Grader", (spec) => addAgent(spec, { id: "grader" }));
    const saving = { spec: store.getState().spec!, positions: store.getState().positions };
    store.getState().edit("add Judge", (spec) => addAgent(spec, { id: "judge" }));
    const verdict = crewDocument("saved");
    store.getState().markSaved({ path: "/crews/new.yaml", layout: "file", document: verdict, snapshot: saving });
    expect(store.getState().path).toBe("/crews/new.yaml");
    expect(store.getState().dirty).toBe(true);
    // The verdict is on the saved crew, not the current one.
    expect(store.getState().document).not.toBe(verdict);
  });
});

describe("validation", () => {
  it("checks after each edit, and the latest spec wins", async () => {
    const store = openExam();
    const { calls, check } = controlledChecker();
    store.getState().setChecker(check);
    expect(check).not.toHaveBeenCalled(); // the opened crew came with its verdict
    store.getState().edit("add a", (spec) => addAgent(spec, { id: "a" }));
    expect(store.getState().validating).toBe(true);
    store.getState().edit("add b", (spec) => addAgent(spec, { id: "b" }));
    store.getState().edit("add c", (spec) => addAgent(spec, { id: "c" }));
    // One check in flight, at most one more queued.
    expect(check).toHaveBeenCalledTimes(1);
    calls[0].resolve(crewDocument("after a"));
    await settled();
    expect(store.getState().document!.name).toBe("exam"); // the verdict on "a" came too late
    expect(check).toHaveBeenCalledTimes(2);
    expect(calls[1].spec).toBe(store.getState().spec);
    expect(store.getState().validating).toBe(true);
    calls[1].resolve(crewDocument("after c"));
    await settled();
    const state = store.getState();
    expect(state.document!.name).toBe("after c");
    expect(state.checked).toBe(state.spec);
    expect(state.validating).toBe(false);
  });

  it("drops a verdict on a spec that was undone meanwhile", async () => {
    const store = openExam();
    const { calls, check } = controlledChecker();
    store.getState().setChecker(check);
    store.getState().edit("add a", (spec) => addAgent(spec, { id: "a" }));
    store.getState().undo();
    calls[0].resolve(crewDocument("with a"));
    await settled();
    expect(store.getState().document!.name).not.toBe("with a");
    expect(calls[1].spec).toBe(store.getState().spec);
    calls[1].resolve(crewDocument("without a"));
    await settled();
    expect(store.getState().document!.name).toBe("without a");
  });

  it("reports a check that failed, and clears it when the next one succeeds", async () => {
    const store = openExam();
    const { calls, check } = controlledChecker();
    store.getState().setChecker(check);
    store.getState().edit("add a", (spec) => addAgent(spec, { id: "a" }));
    calls[0].reject({ code: "internal", message: "the engine is not answering" });
    await settled();
    expect(store.getState().checkError).toBe("the engine is not answering");
    expect(store.getState().validating).toBe(false);
    store.getState().edit("add b", (spec) => addAgent(spec, { id: "b" }));
    calls[1].resolve(crewDocument("fine"));
    await settled();
    expect(store.getState().checkError).toBeNull();
  });

  it("checks a crew opened without a verdict, once a checker is there", async () => {
    const store = openExam(null);
    const { calls, check } = controlledChecker();
    store.getState().setChecker(check);
    expect(check).toHaveBeenCalledTimes(1);
    calls[0].resolve(crewDocument("new"));
    await settled();
    expect(store.getState().document!.name).toBe("new");
  });

  it("does not let a verdict on the previous crew land on a newly opened one", async () => {
    const store = openExam();
    const { calls, check } = controlledChecker();
    store.getState().setChecker(check);
    store.getState().edit("add a", (spec) => addAgent(spec, { id: "a" }));
    const other = crewDocument("other");
    store.getState().load({ path: null, layout: "file", spec: { name: "Other", agents: [] }, document: other, positions: {} });
    calls[0].resolve(crewDocument("exam with a"));
    await settled();
    expect(store.getState().document).toBe(other);
    expect(store.getState().validating).toBe(false);
    expect(check).toHaveBeenCalledTimes(1);
  });
});

describe("problemsFor", () => {
  it("picks the problems about one node or edge", () => {
    const problem: ProblemView = {
      diagnostic: {
        severity: "warning",
        problem: { code: "unreachable", agent: "reporter" },
        message: "agent 'reporter' is not reached by any route",
        plain: "Nothing leads to Reporter",
        location: null,
        subject: { kind: "agent", agent: "reporter" },
      },
      targets: ["agent:reporter"],
    };
    const doc = crewDocument("exam", [problem]);
    expect(problemsFor(doc, "agent:reporter")).toEqual([problem]);
    expect(problemsFor(doc, "agent:teacher")).toEqual([]);
    expect(problemsFor(null, "agent:teacher")).toEqual([]);
  });
});

describe("select", () => {
  it("leaves the state alone when the selection is the same", () => {
    const store = createEditorStore();
    store.getState().select(["agent:a"]);
    const before = store.getState();
    store.getState().select(["agent:a"]);
    expect(store.getState()).toBe(before);
    store.getState().select([]);
    expect(store.getState().selection).toEqual([]);
  });
});

describe("placing nodes that have no place yet", () => {
  it("is no undo step and no unsaved change, so undoing back to the crew as opened leaves nothing unsaved", () => {
    const store = createEditorStore();
    store.getState().load({ path: "/crews/exam.yaml", layout: "file", spec: examCrew(), document: crewDocument("exam"), positions: {} });
    // The automatic layout of a crew opened for the first time.
    store.getState().place({ "agent:teacher": { x: 0, y: 0 }, "agent:student": { x: 300, y: 0 } });
    expect(store.getState().dirty).toBe(false);
    expect(store.getState().history.past).toEqual([]);
    store.getState().edit("add Grader", (spec) => addAgent(spec, { id: "grader" }));
    expect(store.getState().dirty).toBe(true);
    store.getState().undo();
    expect(store.getState().dirty).toBe(false);
    // A node already placed keeps its place.
    store.getState().place({ "agent:teacher": { x: 99, y: 99 } });
    expect(store.getState().positions["agent:teacher"]).toEqual({ x: 0, y: 0 });
  });
});
