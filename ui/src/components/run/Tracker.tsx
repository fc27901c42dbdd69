// The delegation tracker (UX.md, the bottom region's right, under its Handoffs
// tab): one line per move of the work, "Teacher → Student · because the reply said
// [QUESTION] (exact)", with its time — the transfers, and the moves that are not
// signals: a group handing the work back ("then"), the move to End, to Wait — and,
// at its place among them, a reply that matched no signal but came close to one,
// with its fixes (MissedRoute.tsx). A line clicked selects the arrow it took on
// the graph and brings the turn whose reply led to it into view in the transcript;
// its eye opens what that turn's agent saw (SeenButton → SeenView).
// It follows its newest lines unless the person scrolled up to read (useFollowing);
// a long run shows its newest lines (as many as its box holds while it follows
// them, SHOWN_LINES once the person scrolls up), the earlier ones behind a button.
import { memo, useMemo, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { editorStore } from "../../editor/store";
import { arrowsOf } from "../../graph/refs";
import { missedTurns, trackerEntries } from "../../run/nearMiss";
import type { Handoff } from "../../run/reducer";
import { runStore, useRun } from "../../run/store";
import { handoffReason, moveSource, moveTarget, type Namer, timeOf } from "../../run/words";
import { MissedLine } from "./MissedRoute";
import { edgeForHandoff } from "./runClasses";
import { SeenLineButton } from "./SeenButton";
import { useFollowing } from "./useFollowing";
import { useNames } from "./useNames";

/** Shows a handoff: its arrow selected on the graph, its turn in the transcript. */
export function showHandoff(handoff: Handoff): void {
  const graph = editorStore.getState().document?.graph;
  const edge = graph ? edgeForHandoff(handoff, arrowsOf(graph)) : null;
  if (edge) editorStore.getState().select([edge]);
  runStore.getState().highlightTurn(handoff.turn);
}

/** The tracker's smallest line with the gap after it (run.css): a handoff's two
 * lines of 12.5 px text, 45 px; kept lower for a line drawn smaller. */
const LEAST_LINE_PX = 32;

export function Tracker() {
  const handoffs = useRun((s) => s.view?.handoffs);
  const missed = useRun(useShallow((s) => (s.view ? missedTurns(s.view.turns) : [])));
  const lines = useMemo(() => (handoffs ? trackerEntries(handoffs, missed) : []), [handoffs, missed]);
  const runId = useRun((s) => s.view?.runId);
  const highlight = useRun((s) => s.highlight);
  const names = useNames();
  const [all, setAll] = useState<string | null>(null);
  const { ref, onScroll, kept } = useFollowing<HTMLElement>(lines, runId, LEAST_LINE_PX);
  const showAll = all !== null && all === runId;
  const hidden = !showAll ? Math.max(0, lines.length - kept) : 0;
  return (
    <section className="run-tracker" aria-label="Handoffs" ref={ref} onScroll={onScroll}>
      {lines.length === 0 ? (
        <p className="run-empty">Each time an agent hands the work on, a line appears here saying why.</p>
      ) : (
        <ol className="run-handoffs">
          {hidden > 0 && (
            <li>
              <button type="button" className="run-more" onClick={() => setAll(runId ?? "")}>
                Show the {hidden} earlier handoffs
              </button>
            </li>
          )}
          {lines.slice(hidden).map((line) =>
            line.kind === "missed" ? (
              <MissedLine key={`m${line.seq}`} turn={line.turn} names={names} highlighted={line.turn.id === highlight} />
            ) : (
              <HandoffLine
                key={line.seq}
                handoff={line.move}
                names={names}
                highlighted={line.move.turn !== null && line.move.turn === highlight}
              />
            ),
          )}
        </ol>
      )}
    </section>
  );
}

/** One handoff; a line that did not change is not drawn again. */
const HandoffLine = memo(function HandoffLine({ handoff, names, highlighted }: { handoff: Handoff; names: Namer; highlighted: boolean }) {
  return (
    <li className="run-handoff-row">
      <button
        type="button"
        className={`run-handoff run-move-${handoff.kind}${highlighted ? " highlighted" : ""}`}
        onClick={() => showHandoff(handoff)}
        title={handoff.kind === "transfer" ? `Show this handoff on the graph (the engine said: ${handoff.reason})` : "Show this move on the graph"}
      >
        <span className="run-handoff-who">
          {moveSource(handoff, names)} → {moveTarget(handoff, names)}
        </span>
        <span className="run-handoff-why"> · {handoffReason(handoff)}</span>
        <time className="run-handoff-time" dateTime={handoff.timestamp}>
          {timeOf(handoff.timestamp)}
        </time>
      </button>
      <SeenLineButton turnId={handoff.turn} names={names} />
    </li>
  );
});
