// The models agents can use, as the backend lists them (each with what its last
// check found): one list for the start view, Settings, the agent form's model
// picker, the run panel and the cards' warnings. It is asked for once, when first
// wanted, and again after every change (`reloadModels()`), so a model added,
// chosen or checked in one place shows the same everywhere. The newest answer wins.
//
//   const models = useModels();          // null until the first answer
//   await backend.putModel(name, model);
//   await reloadModels();
import { useEffect } from "react";
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import { backend } from "../backend";
import type { ModelView } from "../bindings/ModelView";

type ModelsState = {
  /** The list; null until the backend first answered. */
  models: ModelView[] | null;
  /** Why the last question failed (null: it did not). */
  error: string | null;
};

export const modelsStore = createStore<ModelsState>()(() => ({ models: null, error: null }));

let generation = 0;
let first: Promise<void> | null = null;

/** Asks the backend for the list again; resolves once the store has the answer. */
export function reloadModels(): Promise<void> {
  const mine = ++generation;
  return Promise.resolve()
    .then(() => backend.listModels())
    .then(
      (models) => {
        if (mine === generation) modelsStore.setState({ models, error: null });
      },
      (error: unknown) => {
        if (mine === generation) modelsStore.setState({ error: error instanceof Error ? error.message : String(error) });
      },
    );
}

/** Asks for the list unless it was asked for already (again after a failure). */
function ensureModels(): void {
  if (first && modelsStore.getState().error === null) return;
  first = reloadModels();
}

/** The models (null until known), asked for when first wanted. */
export function useModels(): ModelView[] | null {
  const models = useStore(modelsStore, (s) => s.models);
  useEffect(ensureModels, []);
  return models;
}

/** Forgets the list (tests: each starts with a backend of its own). */
export function resetModels(): void {
  generation += 1;
  first = null;
  modelsStore.setState({ models: null, error: null });
}
