import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import {
  HISTORY_LIMIT,
  canRedo,
  canUndo,
  emptyHistory,
  push,
  redo,
  redoLabel,
  undo,
  undoLabel,
  type Snapshot,
} from "./history";

const crew = (name: string): CrewSpec => ({ name, agents: [] });
const snap = (name: string): Snapshot => ({ spec: crew(name), positions: {} });

describe("history", () => {
  it("undoes and redoes changes in order, naming them for the tooltips", () => {
    const a = snap("a");
    const b = snap("b");
    const c = snap("c");
    let h = push(push(emptyHistory(), "rename to b", a), "rename to c", b);
    expect(undoLabel(h)).toBe("Undo: rename to c");
    expect(canRedo(h)).toBe(false);
    const first = undo(h, c)!;
    expect(first.snapshot).toBe(b);
    h = first.history;
    expect(redoLabel(h)).toBe("Redo: rename to c");
    expect(undoLabel(h)).toBe("Undo: rename to b");
    const second = undo(h, b)!;
    expect(second.snapshot).toBe(a);
    expect(canUndo(second.history)).toBe(false);
    expect(undo(second.history, a)).toBeNull();
    const again = redo(second.history, a)!;
    expect(again.snapshot).toBe(b);
    expect(redo(again.history, b)!.snapshot).toBe(c);
  });

  it("forgets what was undone once a new change is made", () => {
    const h = undo(push(emptyHistory(), "one", snap("a")), snap("b"))!.history;
    expect(canRedo(h)).toBe(true);
    const after = push(h, "two", snap("a"));
    expect(canRedo(after)).toBe(false);
    expect(redoLabel(after)).toBeNull();
  });

  it(`keeps at most ${HISTORY_LIMIT} steps, dropping the oldest`, () => {
    let h = emptyHistory();
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) h = push(h, `step ${i}`, snap(String(i)));
    expect(h.past).toHaveLength(HISTORY_LIMIT);
    expect(h.past[0].label).toBe("step 5");
    expect(undoLabel(h)).toBe(`Undo: step ${HISTORY_LIMIT + 4}`);
  });
});
