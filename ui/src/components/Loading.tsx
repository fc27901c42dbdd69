// What a part of the window shows while its code loads (the editor, a dialog: they
// are loaded the first time they are opened, so the start view comes up sooner).
// Loading from the app's own files takes a blink, so the words appear only if it
// takes longer than that (styles.css, `.view-loading`): no flash either way.

/** A calm "Opening …" in the place of a view whose code is on its way. */
export function Loading({ what }: { what: string }) {
  return (
    <div className="view-loading" role="status" aria-live="polite">
      <span>{what}</span>
    </div>
  );
}
