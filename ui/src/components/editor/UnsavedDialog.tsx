// "This crew has changes that are not saved": Save (then go on), Discard (go on
// without them) or Cancel (stay). Shown by the editor whenever the question is up
// (unsaved.ts); Escape is Cancel.
import { useEffect } from "react";
import { Dialog } from "../Dialog";
import { unsavedStore, useUnsavedQuestion } from "./unsaved";

export function UnsavedDialog() {
  const question = useUnsavedQuestion();
  // While the editor is on screen, the question is asked here.
  useEffect(() => {
    unsavedStore.setState((s) => ({ shown: s.shown + 1 }));
    return () => {
      unsavedStore.getState().question?.answer("cancel");
      unsavedStore.setState((s) => ({ shown: s.shown - 1 }));
    };
  }, []);
  if (!question) return null;
  return (
    <Dialog className="unsaved-dialog" labelledBy="unsaved-title" onClose={() => question.answer("cancel")}>
      <h2 id="unsaved-title">Save your changes first?</h2>
      <p className="dialog-help">
        This crew has changes that are not saved. {question.doing} after saving them, or without them?
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={() => question.answer("cancel")}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={() => question.answer("discard")}>
          Discard changes
        </button>
        <button type="button" className="primary" autoFocus onClick={() => question.answer("save")}>
          Save
        </button>
      </div>
    </Dialog>
  );
}
