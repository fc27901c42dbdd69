// The delegation tracker (UX.md, the bottom region's right): one line per handoff,
// "Teacher → Student · because the reply said [QUESTION] (exact)", with its time.
// A line clicked selects the arrow it took on the graph and brings the turn whose
// reply led to it into view in the transcript.
import { editorStore } from "../../editor/store";
import type { Handoff } from "../../run/reducer";
import { runStore, useRun } from "../../run/store";
import { handoffReason, targetNames, timeOf } from "../../run/words";
import { edgeForHandoff } from "./runClasses";
import { useNames } from "./useNames";

/** Shows a handoff: its arrow selected on the graph, its turn in the transcript. */
export function showHandoff(handoff: Handoff): void {
  const edges = editorStore.getState().document?.graph.edges ?? [];
  const edge = edgeForHandoff(handoff, edges);
  if (edge) editorStore.getState().select([edge]);
  runStore.getState().highlightTurn(handoff.turn);
}

export function Tracker() {
  const handoffs = useRun((s) => s.view?.handoffs);
  const highlight = useRun((s) => s.highlight);
  const names = useNames();
  return (
    <section className="run-tracker" aria-label="Handoffs">
      <h3 className="run-heading">Handoffs</h3>
      {!handoffs || handoffs.length === 0 ? (
        <p className="run-empty">Each time an agent hands the work on, a line appears here saying why.</p>
      ) : (
        <ol className="run-handoffs">
          {handoffs.map((handoff) => (
            <li key={handoff.seq}>
              <button
                type="button"
                className={`run-handoff${handoff.turn !== null && handoff.turn === highlight ? " highlighted" : ""}`}
                onClick={() => showHandoff(handoff)}
                title={`Show this handoff on the graph (the engine said: ${handoff.reason})`}
              >
                <span className="run-handoff-who">
                  {names(handoff.from)} → {targetNames(handoff.to, names)}
                </span>
                <span className="run-handoff-why"> · {handoffReason(handoff)}</span>
                <time className="run-handoff-time" dateTime={handoff.timestamp}>
                  {timeOf(handoff.timestamp)}
                </time>
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
