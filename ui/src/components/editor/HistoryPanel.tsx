// The crew's history, beside the canvas: every revision kept (each save, each run),
// newest first, with when, what changed in words and the runs made of it (how each
// ended, what it cost). Two ticked revisions compare over the canvas
// (RevisionCompare); "Restore this revision" puts a revision back in the editor as
// one edit, which Undo takes back, and which is kept once saved.
import { useEffect, useState } from "react";
import "./history.css";
import type { RevisionDiff } from "../../bindings/RevisionDiff";
import type { RevisionView } from "../../bindings/RevisionView";
import { backend } from "../../backend";
import { changeLines, comparedPair, firstPicks, restoreRevision, runLine, runsCost, savedWords, togglePick } from "../../editor/revisions";
import { editorStore, useEditor } from "../../editor/store";
import { RevisionCompare } from "./RevisionCompare";

/** How many runs of a revision show before "and N more". */
const RUNS_SHOWN = 4;

type Props = {
  /** The crew's file or folder, as the editor opened it. */
  crew: string;
  onClose: () => void;
};

export function HistoryPanel({ crew, onClose }: Props) {
  const saved = useEditor((s) => s.saved);
  const placed = useEditor((s) => s.positions);
  const [revisions, setRevisions] = useState<RevisionView[] | null>(null);
  const [picked, setPicked] = useState<number[]>([]);
  const [compared, setCompared] = useState<RevisionDiff | null>(null);
  const [said, setSaid] = useState<{ text: string; bad: boolean } | null>(null);

  // Read again whenever the crew is saved (a save may keep a new revision).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `saved` is the trigger
  useEffect(() => {
    let current = true;
    backend.listRevisions(crew).then(
      (found) => {
        if (!current) return;
        setRevisions(found);
        setPicked((before) => (before.length ? before.filter((r) => found.some((f) => f.revision === r)) : firstPicks(found)));
      },
      (error: unknown) => current && setSaid({ text: `The history could not be read: ${message(error)}`, bad: true }),
    );
    return () => {
      current = false;
    };
  }, [crew, saved]);

  const pair = comparedPair(picked);
  const compare = async () => {
    if (!pair) return;
    try {
      setCompared(await backend.diffRevisions(crew, pair[0], pair[1]));
      setSaid(null);
    } catch (error) {
      setSaid({ text: `These revisions could not be compared: ${message(error)}`, bad: true });
    }
  };

  const restore = async (revision: number) => {
    setSaid(null);
    try {
      const kept = await backend.openRevision(crew, revision);
      const result = editorStore.getState().edit(`restore revision ${revision}`, restoreRevision(kept.spec));
      setSaid(
        result.ok
          ? { text: `Revision ${revision} is back in the editor. Undo takes it back; Save keeps it.`, bad: false }
          : { text: result.error, bad: false },
      );
      setCompared(null);
    } catch (error) {
      setSaid({ text: `Revision ${revision} could not be restored: ${message(error)}`, bad: true });
    }
  };

  return (
    <>
      {compared && <RevisionCompare compared={compared} placed={placed} onClose={() => setCompared(null)} />}
      <aside className="history-panel" aria-label="History of this crew">
        <header className="history-header">
          <h2>History</h2>
          <button type="button" className="icon" onClick={onClose} title="Close the history" aria-label="Close the history">
            ×
          </button>
        </header>
        <p className="muted history-help">Each save and each run keeps a revision. Tick two to see what changed between them.</p>
        <button type="button" className="primary history-compare" disabled={!pair} onClick={() => void compare()}>
          {pair ? `Compare revision ${pair[0]} with ${pair[1]}` : "Tick two revisions to compare"}
        </button>
        {said && (
          <p className={said.bad ? "history-said bad" : "history-said"} role={said.bad ? "alert" : "status"}>
            {said.text}
          </p>
        )}
        {revisions === null && !said && <p className="muted">Reading the history…</p>}
        {revisions?.length === 0 && <p className="muted">No revisions yet: save the crew (Ctrl+S) or run it, and each version is kept here.</p>}
        <ol className="history-list">
          {revisions?.map((revision) => (
            <RevisionItem
              key={revision.revision}
              revision={revision}
              picked={picked.includes(revision.revision)}
              onPick={() => setPicked((before) => togglePick(before, revision.revision))}
              onRestore={() => void restore(revision.revision)}
            />
          ))}
        </ol>
      </aside>
    </>
  );
}

type ItemProps = { revision: RevisionView; picked: boolean; onPick: () => void; onRestore: () => void };

function RevisionItem({ revision, picked, onPick, onRestore }: ItemProps) {
  const cost = runsCost(revision.runs);
  const runs = revision.runs.slice(0, RUNS_SHOWN);
  return (
    <li className={`history-item${picked ? " picked" : ""}`} data-revision={revision.revision}>
      <label className="history-pick">
        <input type="checkbox" checked={picked} onChange={onPick} />
        <span className="history-title">Revision {revision.revision}</span>
        <span className="history-when">{savedWords(revision.saved_at)}</span>
        {revision.current && (
          <span className="history-now" title="The crew's file is this revision now">
            saved now
          </span>
        )}
      </label>
      <ul className="history-changes">
        {changeLines(revision).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {revision.runs.length > 0 && (
        <div className="history-runs">
          <span className="history-runs-title">
            {revision.runs.length} run{revision.runs.length === 1 ? "" : "s"}
            {cost && ` · ${cost} in all`}
          </span>
          <ul>
            {runs.map((run) => (
              <li key={run.id} title={`“${run.input}”`}>
                <span className={`run-dot run-dot-${run.status}`} aria-hidden /> {runLine(run)}
              </li>
            ))}
            {revision.runs.length > RUNS_SHOWN && <li className="muted">and {revision.runs.length - RUNS_SHOWN} more</li>}
          </ul>
        </div>
      )}
      <button type="button" className="history-restore" onClick={onRestore} title="Put this revision back in the editor (Undo takes it back)">
        Restore this revision
      </button>
    </li>
  );
}

function message(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String(error.message);
  return String(error);
}
