// Revisions side by side, the pure parts: which two are compared, a revision's runs
// and changes in words, the changed instructions of a comparison, the marks on the
// compared graph, and restoring a revision as one undo step.
import { describe, expect, it } from "vitest";
import type { CrewDiff } from "../bindings/CrewDiff";
import type { GraphView } from "../bindings/GraphView";
import type { RevisionView } from "../bindings/RevisionView";
import type { RunSummary } from "../bindings/RunSummary";
import { examCrew } from "./fixtures";
import {
  changeLines,
  comparedPair,
  comparePlaces,
  firstPicks,
  markClass,
  markCounts,
  restoreRevision,
  runLine,
  runsCost,
  textChanges,
  togglePick,
} from "./revisions";
import { createEditorStore } from "./store";

const run = (status: RunSummary["status"], steps: number, cost_usd?: number): RunSummary => ({
  id: `run-${status}-${steps}`,
  crew_name: "Exam",
  input: "Begin",
  status,
  created_at: "2026-11-27T10:00:00Z",
  updated_at: "2026-11-27T10:00:05Z",
  steps,
  handoffs: 1,
  error: null,
  tokens: { input_tokens: 10, output_tokens: 5, ...(cost_usd === undefined ? {} : { cost_usd }) },
});

const revision = (n: number, previous: number | null, changes: string[] = []): RevisionView => ({
  revision: n,
  name: "Exam",
  saved_at: "2026-11-27T10:00:00Z",
  previous,
  changes,
  runs: [],
  current: false,
});

describe("picking two revisions to compare", () => {
  it("keeps at most two picks, the latest replacing the earlier, and compares older with newer", () => {
    let picked = togglePick([], 3);
    expect(comparedPair(picked)).toBeNull();
    picked = togglePick(picked, 1);
    expect(comparedPair(picked)).toEqual([1, 3]);
    picked = togglePick(picked, 2);
    expect(picked).toEqual([1, 2]);
    expect(togglePick(picked, 2)).toEqual([1]);
  });

  it("opens with the two newest picked: the last change is one click away", () => {
    expect(firstPicks([revision(5, 4), revision(4, 3), revision(3, null)])).toEqual([4, 5]);
    expect(firstPicks([revision(1, null)])).toEqual([1]);
  });
});

describe("a revision in words", () => {
  it("says what changed, the first revision, and a change of writing only", () => {
    expect(changeLines(revision(2, 1, ["added agent Critic"]))).toEqual(["Added agent Critic"]);
    expect(changeLines(revision(1, null))).toEqual(["The first revision kept."]);
    expect(changeLines(revision(3, 2))[0]).toMatch(/^Nothing changed in how the crew works/);
  });

  it("says how each run ended, its steps and cost, and what the priced runs cost together", () => {
    expect(runLine(run("terminated", 7, 0.0042))).toBe("finished · 7 steps · $0.0042");
    expect(runLine(run("failed", 1))).toBe("failed · 1 step");
    expect(runsCost([run("terminated", 2, 0.01), run("failed", 1), run("completed", 3, 0.02)])).toBe("$0.03");
    expect(runsCost([run("failed", 1)])).toBeNull();
  });
});

describe("a comparison", () => {
  const diff: CrewDiff = {
    crew: [],
    agents: [
      { id: "critic", name: "Critic", change: "added", fields: [] },
      {
        id: "writer",
        name: "Writer",
        change: "changed",
        fields: [
          { field: "model", words: "model", before: "fast", after: "default", hunks: [] },
          {
            field: "system_prompt",
            words: "instructions",
            before: "a\nb\n",
            after: "a\nc\n",
            hunks: [{ old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [{ kind: "same", text: "a" }, { kind: "removed", text: "b" }, { kind: "added", text: "c" }] }],
          },
        ],
      },
    ],
    routes: [],
    fallbacks: [],
    groups: [],
    signals: [],
    sentences: ["added agent Critic", "changed Writer's model from fast to default", "changed Writer's instructions"],
  };

  it("lists only the texts that changed line by line, named in words", () => {
    const texts = textChanges(diff);
    expect(texts.map((t) => t.title)).toEqual(["Writer's instructions"]);
    expect(texts[0].hunks[0].lines.map((l) => l.kind)).toEqual(["same", "removed", "added"]);
  });

  it("gives each marked node and arrow its class and counts them", () => {
    const marks = { "agent:critic": "added", "removed:rule:editor:0:agent:writer": "removed", "agent:writer": "changed" } as const;
    expect(markClass(marks, "agent:critic")).toBe("diff-added");
    expect(markClass(marks, "agent:editor")).toBe("");
    expect(markCounts(marks)).toEqual({ added: 1, removed: 1, changed: 1 });
  });

  it("keeps the editor's places only when they cover every card", () => {
    const node = (id: string, kind: "agent" | "end" | "group" = "agent") => ({ id, kind, label: id, agent: null, role: null, model: null, description: null, tags: [], parent: null, entry: false, terminal: false, waits: false, group: null });
    const graph: GraphView = { nodes: [node("group:g", "group"), node("agent:a"), node("end", "end")], edges: [] };
    const placed = { "agent:a": { x: 1, y: 2 }, end: { x: 3, y: 4 }, "agent:gone": { x: 0, y: 0 } };
    expect(comparePlaces(graph, placed)).toEqual({ "agent:a": { x: 1, y: 2 }, end: { x: 3, y: 4 } });
    expect(comparePlaces(graph, { "agent:a": { x: 1, y: 2 } })).toBeNull();
  });
});

describe("restoring a revision", () => {
  it("replaces the crew as one edit that Undo takes back, and refuses an empty one", () => {
    const store = createEditorStore();
    const now = examCrew();
    store.getState().load({ path: "/crews/exam.yaml", layout: "file", spec: now, document: null, positions: {} });
    const older = { ...examCrew(), name: "Exam, as it was", agents: examCrew().agents.slice(0, 2) };
    const result = store.getState().edit("restore revision 2", restoreRevision(older));
    expect(result.ok).toBe(true);
    expect(store.getState().spec).toEqual(older);
    expect(store.getState().dirty).toBe(true);
    expect(store.getState().history.past.map((s) => s.label)).toEqual(["restore revision 2"]);
    store.getState().undo();
    expect(store.getState().spec).toEqual(now);
    const again = store.getState().edit("restore revision 3", restoreRevision(examCrew()));
    expect(again).toEqual({ ok: false, error: "The crew is already this revision." });
    expect(store.getState().history.past).toHaveLength(0);
  });
});
