// The graph editor's one store: the open crew (spec, node positions, selection),
// its undo history, whether it differs from what was saved, and the engine's latest
// verdict on it. Edits are the pure functions of this folder, applied by `edit`;
// each accepted edit is one undo step and is checked by the engine through an
// injected checker, "latest wins". Vanilla zustand, so tests need no React;
// components read it with `useEditor(selector)`.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewLayout } from "../bindings/CrewLayout";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ProblemView } from "../bindings/ProblemView";
import { inSelection } from "../graph/refs";
import { deepEqual } from "./equal";
import * as history from "./history";
import type { History, Positions, Snapshot } from "./history";
import { type EditResult, type Refusal, refuse } from "./result";
import { type RuntimePart, withRuntime } from "./runtime";

/** Asks the engine for its verdict on a spec (the backend's check command). */
export type Checker = (spec: CrewSpec) => Promise<CrewDocument>;

/** A crew as it was opened (or created: `path` null, `document` null). */
export type OpenedCrew = {
  path: string | null;
  layout: CrewLayout;
  spec: CrewSpec;
  /** The engine's verdict, when opening gave one; null: it is checked now. */
  document: CrewDocument | null;
  positions: Positions;
};

export type EditOptions<R extends EditResult> = {
  /** Node positions to set in the same undo step (a new agent where it was dropped),
   * or a function of the edit's result (pasted agents, whose ids the paste chose). */
  positions?: Positions | ((result: Extract<R, { ok: true }>) => Positions);
};

export type SavedCrew = {
  path: string;
  layout: CrewLayout;
  /** The engine's verdict on what was saved. */
  document?: CrewDocument | null;
  /** What was saved, when edits may have followed it; the current crew otherwise. */
  snapshot?: Snapshot;
};

export type EditorState = {
  /** Where the crew is saved; null for a crew never saved. */
  path: string | null;
  layout: CrewLayout;
  spec: CrewSpec | null;
  /** The engine's latest verdict (graph and problems), with the crew's runtime
   * agents added (`runtime`: they are not in its files). */
  document: CrewDocument | null;
  /** The agents added to the crew while the app runs, from the crew as it runs
   * (runtime.ts); null: none, or not looked at yet. */
  runtime: RuntimePart | null;
  /** The spec `document` describes; when it is not `spec`, the verdict is behind
   * the edits (and its rule indexes may not match `spec` yet). */
  checked: CrewSpec | null;
  positions: Positions;
  /** Selected node and edge ids. */
  selection: string[];
  /** The crew or its layout differs from the saved one. */
  dirty: boolean;
  history: History;
  /** A check of the current spec is under way or queued. */
  validating: boolean;
  /** Why the last check could not be made (not the crew's problems: those are in `document`). */
  checkError: string | null;
  /** The crew as last saved or opened. */
  saved: Snapshot | null;

  load(crew: OpenedCrew): void;
  /** Applies a pure edit: on refusal nothing changes and the refusal is returned;
   * otherwise one undo step, dirty, and a check. */
  edit<R extends EditResult>(label: string, fn: (spec: CrewSpec) => R, options?: EditOptions<R>): R | Refusal;
  /** Nodes dragged to new places (at the end of a drag): one undo step per drag. */
  move(positions: Positions, label?: string): void;
  /** Places for nodes that have none yet (an automatic layout of a crew opened for
   * the first time, an agent added while the app runs): not an undo step and not an
   * unsaved change — the places join what counts as saved. Nodes already placed keep
   * their places. */
  place(positions: Positions): void;
  select(ids: string[]): void;
  undo(): void;
  redo(): void;
  markSaved(saved: SavedCrew): void;
  /** The engine's checker; set once when the window starts. */
  setChecker(checker: Checker | null): void;
  /** The crew's runtime agents as now (drawn with the verdict; not an edit). */
  setRuntime(part: RuntimePart | null): void;
};

export type EditorStore = ReturnType<typeof createEditorStore>;

export function createEditorStore() {
  let checker: Checker | null = null;
  let inFlight = false;
  let queued = false;
  /** The engine's latest verdict as it came (`document` is it with the runtime agents). */
  let verdict: CrewDocument | null = null;

  return createStore<EditorState>()((set, get) => {
    /** A new verdict: `document` is it with the runtime agents. */
    const judged = (document: CrewDocument | null, runtime = get().runtime) => {
      verdict = document;
      return document ? withRuntime(document, runtime) : null;
    };

    /** Checks the current spec now, or once the check under way is done. */
    const scheduleCheck = () => {
      const { spec } = get();
      if (!checker || !spec) return;
      set({ validating: true });
      if (inFlight) {
        queued = true;
        return;
      }
      runCheck(checker, spec);
    };

    const runCheck = (check: Checker, spec: CrewSpec) => {
      inFlight = true;
      check(spec).then(
        (document) => settle(spec, () => set({ document: judged(document), checked: spec, checkError: null })),
        (error: unknown) => settle(spec, () => set({ checkError: errorMessage(error) })),
      );
    };

    /** A check ended: its result counts only if the spec is still the current one. */
    const settle = (spec: CrewSpec, apply: () => void) => {
      inFlight = false;
      const current = get().spec;
      if (spec === current) apply();
      if (queued) {
        queued = false;
        if (checker && current && current !== spec) {
          runCheck(checker, current);
          return;
        }
      }
      set({ validating: false });
    };

    /** Moves to a snapshot (an edit, an undo or a redo) and checks a changed spec. */
    const show = (snapshot: Snapshot, changes: Partial<EditorState>) => {
      const before = get().spec;
      set({
        ...changes,
        spec: snapshot.spec,
        positions: snapshot.positions,
        dirty: isDirty(snapshot, get().saved),
      });
      if (snapshot.spec !== before) scheduleCheck();
    };

    const present = (): Snapshot | null => {
      const { spec, positions } = get();
      return spec ? { spec, positions } : null;
    };

    return {
      path: null,
      layout: "file",
      spec: null,
      document: null,
      runtime: null,
      checked: null,
      positions: {},
      selection: [],
      dirty: false,
      history: history.emptyHistory(),
      validating: false,
      checkError: null,
      saved: null,

      load(crew) {
        queued = false;
        set({
          path: crew.path,
          layout: crew.layout,
          spec: crew.spec,
          document: judged(crew.document, null),
          runtime: null,
          checked: crew.document ? crew.spec : null,
          positions: crew.positions,
          selection: [],
          dirty: false,
          history: history.emptyHistory(),
          validating: false,
          checkError: null,
          saved: { spec: crew.spec, positions: crew.positions },
        });
        if (!crew.document) scheduleCheck();
      },

      edit(label, fn, options = {}) {
        const now = present();
        if (!now) return refuse("No crew is open");
        const result = fn(now.spec);
        if (!result.ok) return result;
        const renamed = result.renamed ?? {};
        const placed =
          typeof options.positions === "function"
            ? options.positions(result as Extract<typeof result, { ok: true }>)
            : options.positions;
        const positions = { ...rekey(now.positions, renamed), ...placed };
        if (result.spec === now.spec && deepEqual(positions, now.positions)) return result;
        show(
          { spec: result.spec, positions },
          {
            history: history.push(get().history, label, now),
            selection: get().selection.map((id) => renamed[id] ?? id),
          },
        );
        return result;
      },

      move(moved, label) {
        const now = present();
        if (!now) return;
        const positions = { ...now.positions, ...moved };
        if (deepEqual(positions, now.positions)) return;
        const name = label ?? moveLabel(now.spec, Object.keys(moved).filter((id) => !deepEqual(moved[id], now.positions[id])));
        show({ spec: now.spec, positions }, { history: history.push(get().history, name, now) });
      },

      place(placed) {
        const { positions, saved } = get();
        const fresh = Object.fromEntries(Object.entries(placed).filter(([id]) => !Object.hasOwn(positions, id)));
        if (Object.keys(fresh).length === 0) return;
        set({
          positions: { ...positions, ...fresh },
          saved: saved ? { ...saved, positions: { ...saved.positions, ...fresh } } : saved,
        });
      },

      select(ids) {
        // The same selection again (a click on empty canvas with nothing selected)
        // changes nothing, so nothing redraws.
        const current = get().selection;
        if (ids.length === current.length && ids.every((id, i) => id === current[i])) return;
        set({ selection: ids });
      },

      undo() {
        const now = present();
        const step = now && history.undo(get().history, now);
        if (step) show(step.snapshot, { history: step.history });
      },

      redo() {
        const now = present();
        const step = now && history.redo(get().history, now);
        if (step) show(step.snapshot, { history: step.history });
      },

      markSaved({ path, layout, document, snapshot }) {
        const now = present();
        const saved = snapshot ?? now;
        if (!saved) return;
        const current = get().spec;
        set({
          path,
          layout,
          saved,
          dirty: now ? isDirty(now, saved) : false,
          ...(document && saved.spec === current ? { document: judged(document), checked: current, checkError: null } : {}),
        });
      },

      setRuntime(part) {
        set({ runtime: part, document: verdict ? withRuntime(verdict, part) : null });
      },

      setChecker(next) {
        checker = next;
        const { spec, checked } = get();
        if (spec && spec !== checked) scheduleCheck();
      },
    };
  });
}

/** The store the window uses. */
export const editorStore = createEditorStore();

/** Reads the window's editor store from a component. */
export function useEditor<T>(selector: (state: EditorState) => T): T {
  return useStore(editorStore, selector);
}

/** The engine's problems about one node or edge id. */
export function problemsFor(document: CrewDocument | null, id: string): ProblemView[] {
  return document ? document.problems.filter((p) => p.targets.includes(id)) : [];
}

function isDirty(now: Snapshot, saved: Snapshot | null): boolean {
  if (!saved) return true;
  return !deepEqual(now.spec, saved.spec) || !deepEqual(now.positions, saved.positions);
}

/** Positions with renamed nodes under their new ids. */
function rekey(positions: Positions, renamed: Record<string, string>): Positions {
  const moves = Object.entries(renamed).filter(([from]) => Object.hasOwn(positions, from));
  if (moves.length === 0) return positions;
  const next = { ...positions };
  for (const [from, to] of moves) {
    next[to] = positions[from];
    delete next[from];
  }
  return next;
}

/** "move Teacher" for one agent, "move 3 nodes" otherwise. */
function moveLabel(spec: CrewSpec, ids: string[]): string {
  if (ids.length === 1) {
    const [id] = ids;
    const { agents, groups } = inSelection(spec, ids);
    const agent = spec.agents.find((a) => a.id === agents[0]);
    return `move ${agent?.name ?? agent?.id ?? groups[0] ?? id}`;
  }
  return `move ${ids.length} nodes`;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message;
  }
  return "The crew could not be checked";
}
