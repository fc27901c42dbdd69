// The run store: a batch is one update, a run's first events may come before its
// id, a watch's end and lost events, a replay stepped and played.
import { beforeEach, describe, expect, it } from "vitest";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import { events, examRun, pausedRun, resumedLeg } from "./fixtures";
import { fromEvents } from "./reducer";
import { createRunStore, type RunStore } from "./store";

const batch = (list: RunEvent[], end: RunBatch["end"] = null, lost_from: bigint | null = null): RunBatch => ({ events: list, end, lost_from });

let store: RunStore;
beforeEach(() => {
  store = createRunStore();
});

describe("live runs", () => {
  it("folds a whole batch in one state update", () => {
    let updates = 0;
    store.subscribe(() => updates++);
    store.getState().begin("run-1");
    updates = 0;
    store.getState().apply(batch(examRun().slice(0, 20)));
    expect(updates).toBe(1);
    expect(store.getState().view).toEqual(fromEvents(examRun().slice(0, 20)));
    // A batch of nothing new (duplicates) changes nothing and redraws nothing.
    store.getState().apply(batch(examRun().slice(5, 10)));
    expect(updates).toBe(1);
  });

  it("a live update reaches the graph when it is shown there, and every other change at once", () => {
    store.getState().begin("run-1");
    store.getState().apply(batch(examRun().slice(0, 10)));
    const first = store.getState().view;
    expect(store.getState().graph).toBe(first);
    // The window's feed: the run dock first, the graph a frame later.
    store.getState().apply(batch(examRun().slice(10, 20)), true);
    expect(store.getState().view).toEqual(fromEvents(examRun().slice(0, 20)));
    expect(store.getState().graph).toBe(first);
    store.getState().showGraph();
    expect(store.getState().graph).toBe(store.getState().view);
    // Showing it again changes nothing.
    let updates = 0;
    store.subscribe(() => updates++);
    store.getState().showGraph();
    expect(updates).toBe(0);
    // A graph left behind never outlives the run it was behind on.
    store.getState().apply(batch(examRun().slice(20, 30)), true);
    store.getState().begin("run-2");
    expect(store.getState().graph).toBe(store.getState().view);
    store.getState().apply(batch(examRun().slice(0, 5)), true);
    store.getState().reset();
    expect(store.getState().graph).toBeNull();
    store.getState().begin("run-1");
    store.getState().apply(batch(examRun().slice(0, 5)), true);
    store.getState().load(examRun());
    expect(store.getState().graph).toBe(store.getState().view);
    store.getState().stepTo(3);
    expect(store.getState().graph).toBe(store.getState().view);
  });

  it("events that arrive before the run's id are kept when the id arrives", () => {
    store.getState().begin(null);
    store.getState().apply(batch(examRun().slice(0, 3)));
    store.getState().begin("run-1");
    expect(store.getState().view?.lastSeq).toBe(2);
    expect(store.getState().events).toHaveLength(3);
  });

  it("another run's batches do not mix in", () => {
    store.getState().begin("run-1");
    store.getState().apply(batch(events([{ type: "run_started", crew: "Other", input: "x" }], "run-2")));
    expect(store.getState().view?.crew).toBe("");
    expect(store.getState().events).toEqual([]);
  });

  it("a resume goes on with the same view; the watch's end is recorded", () => {
    store.getState().begin("run-1");
    store.getState().apply(batch(pausedRun(), "finished"));
    expect(store.getState().ended).toBe("finished");
    expect(store.getState().view?.status).toBe("paused");
    store.getState().begin("run-1");
    expect(store.getState().ended).toBeNull();
    store.getState().apply(batch(resumedLeg(), "finished"));
    expect(store.getState().view).toEqual(fromEvents([...pausedRun(), ...resumedLeg()]));
    expect(store.getState().events.map((e) => e.seq)).toEqual([...Array(14).keys()]);
  });

  it("an interrupted watch forgets the events that were never stored", () => {
    store.getState().begin("run-1");
    store.getState().apply(batch(examRun().slice(0, 12)));
    store.getState().apply(batch(examRun().slice(12, 15), "interrupted", 10n));
    const state = store.getState();
    expect(state.ended).toBe("interrupted");
    expect(state.events.map((e) => e.seq)).toEqual([...Array(10).keys()]);
    expect(state.view).toEqual(fromEvents(examRun().slice(0, 10)));
    // A resume numbers its events from there again, and they are taken.
    store.getState().begin("run-1");
    store.getState().apply(batch(examRun().slice(10)));
    expect(store.getState().view).toEqual(fromEvents(examRun()));
  });

  it("a catch-up after a lagged watch fills in from the last seq", () => {
    store.getState().begin("run-1");
    const all = examRun();
    store.getState().apply(batch(all.slice(0, 8), "lagged"));
    store.getState().begin("run-1");
    store.getState().apply(batch(all.slice(8), "finished"));
    expect(store.getState().view).toEqual(fromEvents(all));
  });

  it("begin with another id starts afresh", () => {
    store.getState().begin("run-1");
    store.getState().apply(batch(examRun()));
    store.getState().begin("run-2");
    expect(store.getState().view?.runId).toBe("run-2");
    expect(store.getState().view?.turns).toEqual([]);
    store.getState().reset();
    expect(store.getState().view).toBeNull();
  });
});

describe("replay", () => {
  it("loads a past run whole, steps through it, and ignores live batches meanwhile", () => {
    const all = examRun();
    store.getState().load([...all].reverse());
    expect(store.getState().view).toEqual(fromEvents(all));
    expect(store.getState().replay).toMatchObject({ position: 34, playing: false, speed: 1 });
    store.getState().stepTo(5);
    expect(store.getState().view).toEqual(fromEvents(all.slice(0, 6)));
    store.getState().stepTo(-10);
    expect(store.getState().replay?.position).toBe(-1);
    expect(store.getState().view?.turns).toEqual([]);
    store.getState().stepTo(99);
    expect(store.getState().replay?.position).toBe(34);
    store.getState().apply(batch(events([{ type: "warning", message: "late" }], "run-1", 35)));
    expect(store.getState().view?.warnings).toEqual([]);
  });

  it("plays from the start when at the end, stops playing at the last event, keeps its speed", () => {
    store.getState().load(examRun());
    store.getState().setSpeed(4);
    store.getState().play();
    expect(store.getState().replay).toMatchObject({ position: -1, playing: true, speed: 4 });
    store.getState().stepTo(33);
    expect(store.getState().replay?.playing).toBe(true);
    store.getState().stepTo(34);
    expect(store.getState().replay?.playing).toBe(false);
    store.getState().stepTo(3);
    store.getState().play();
    store.getState().pause();
    expect(store.getState().replay).toMatchObject({ position: 3, playing: false });
  });

  it("begin leaves a replay for a live run", () => {
    store.getState().load(examRun());
    store.getState().begin("run-9");
    expect(store.getState().replay).toBeNull();
    expect(store.getState().view?.runId).toBe("run-9");
  });
});

describe("typed replies and recordings", () => {
  it("a run's typed mode stays through its id arriving and its resume, and goes with another run", () => {
    store.getState().begin(null);
    store.getState().setTyped(true);
    store.getState().apply(batch(examRun().slice(0, 3)));
    store.getState().begin("run-1");
    expect(store.getState().typed).toBe(true);
    store.getState().begin("run-1");
    expect(store.getState().typed).toBe(true);
    store.getState().begin("run-2");
    expect(store.getState().typed).toBe(false);
  });

  it("a replay is never typed, and says whether it came from a recording file", () => {
    store.getState().setTyped(true);
    store.getState().load(examRun(), true);
    expect(store.getState()).toMatchObject({ typed: false, imported: true });
    store.getState().load(examRun());
    expect(store.getState().imported).toBe(false);
    store.getState().load(examRun(), true);
    store.getState().reset();
    expect(store.getState().imported).toBe(false);
  });
});


describe("the crew a run belongs to", () => {
  it("is the one it was begun or loaded for, kept through its id arriving and a resume, and gone with it", () => {
    store.getState().begin(null, "/crews/exam.yaml");
    store.getState().apply(batch(examRun().slice(0, 3)));
    store.getState().begin("run-1");
    expect(store.getState().crew).toBe("/crews/exam.yaml");
    store.getState().begin("run-1");
    expect(store.getState().crew).toBe("/crews/exam.yaml");
    store.getState().load(examRun(), false, "/crews/other.yaml");
    expect(store.getState().crew).toBe("/crews/other.yaml");
    store.getState().reset();
    expect(store.getState().crew).toBeNull();
  });
});
