// The unsaved-changes question — Save, Discard or Cancel — asked in the window
// before anything would drop edits (opening another crew, a new crew, closing the
// window). `askUnsaved` puts the question up; the editor shows it
// (UnsavedDialog.tsx) while it is open and answers it. Vanilla zustand.
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";

export type UnsavedAnswer = "save" | "discard" | "cancel";

type Question = { doing: string; answer: (choice: UnsavedAnswer) => void };

type UnsavedState = {
  /** The question up now; null: none. */
  question: Question | null;
  /** Someone shows the question (the editor is on screen). */
  shown: number;
};

export const unsavedStore = createStore<UnsavedState>()(() => ({ question: null, shown: 0 }));

/** Asks what to do with unsaved edits before `doing` ("Open another crew"); null
 * when nothing in the window can show the question (then ask another way). */
export function askUnsaved(doing: string): Promise<UnsavedAnswer> | null {
  if (unsavedStore.getState().shown === 0) return null;
  unsavedStore.getState().question?.answer("cancel");
  return new Promise((resolve) => {
    const answer = (choice: UnsavedAnswer) => {
      unsavedStore.setState({ question: null });
      resolve(choice);
    };
    unsavedStore.setState({ question: { doing, answer } });
  });
}

/** The question up now, for the dialog; registers the caller as showing it. */
export function useUnsavedQuestion(): Question | null {
  return useStore(unsavedStore, (s) => s.question);
}
