// Undo and redo over snapshots of what the person edits: the crew and where its
// nodes are. Each step keeps the label of the change ("delete Teacher"), for the
// buttons' tooltips. A plain value with pure functions, so the store holds it.
import type { CrewSpec } from "../bindings/CrewSpec";

export type Position = { x: number; y: number };
/** Node id → where the node sits on the canvas. */
export type Positions = Record<string, Position>;

export type Snapshot = { spec: CrewSpec; positions: Positions };

/** A change: its label, and the snapshot on the other side of it (before it on the
 * undo stack, after it on the redo stack). */
export type Step = { label: string; snapshot: Snapshot };

export type History = { past: Step[]; future: Step[] };

/** The most changes that can be undone; older ones are forgotten. */
export const HISTORY_LIMIT = 200;

export function emptyHistory(): History {
  return { past: [], future: [] };
}

/** Records a change made from `before`; whatever was undone can no longer be redone. */
export function push(history: History, label: string, before: Snapshot): History {
  const past = [...history.past, { label, snapshot: before }];
  return { past: past.length > HISTORY_LIMIT ? past.slice(past.length - HISTORY_LIMIT) : past, future: [] };
}

/** Steps back from `present`: the snapshot to show and the history after it. */
export function undo(history: History, present: Snapshot): { history: History; snapshot: Snapshot } | null {
  const step = history.past.at(-1);
  if (!step) return null;
  return {
    history: { past: history.past.slice(0, -1), future: [...history.future, { label: step.label, snapshot: present }] },
    snapshot: step.snapshot,
  };
}

/** Steps forward again after an undo. */
export function redo(history: History, present: Snapshot): { history: History; snapshot: Snapshot } | null {
  const step = history.future.at(-1);
  if (!step) return null;
  return {
    history: { past: [...history.past, { label: step.label, snapshot: present }], future: history.future.slice(0, -1) },
    snapshot: step.snapshot,
  };
}

export function canUndo(history: History): boolean {
  return history.past.length > 0;
}

export function canRedo(history: History): boolean {
  return history.future.length > 0;
}

/** "Undo: delete Teacher", or null when there is nothing to undo. */
export function undoLabel(history: History): string | null {
  const step = history.past.at(-1);
  return step ? `Undo: ${step.label}` : null;
}

/** "Redo: delete Teacher", or null when there is nothing to redo. */
export function redoLabel(history: History): string | null {
  const step = history.future.at(-1);
  return step ? `Redo: ${step.label}` : null;
}
