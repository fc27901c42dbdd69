// The inspector's one way to change the crew: an edit through the editor store
// (one undo step, checked by the engine), answering with the refusal's words to
// show beside the field, or null when the edit was made.
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { EditResult } from "../../editor/result";
import { type EditOptions, editorStore } from "../../editor/store";

export function apply<R extends EditResult>(
  label: string,
  fn: (spec: CrewSpec) => R,
  options?: EditOptions<R>,
): string | null {
  const result = editorStore.getState().edit(label, fn, options);
  return result.ok ? null : result.error;
}

/** Selects nodes and edges on the canvas. */
export function select(ids: string[]): void {
  editorStore.getState().select(ids);
}

/** Two lists with the same items in the same order. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
