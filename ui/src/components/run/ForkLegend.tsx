// Where a forked run parts from the run it came from, on the canvas (issue 18, item
// 3): while a fork is shown, the first run's events are loaded (its id from the runs
// list's `forked_from`), where the two part is worked out from both runs' events as
// the fork's come in (run/parting.ts), and the arrows there are marked for the edges
// to draw (partingStore: the first run's faint and dashed, the fork's highlighted).
// Under the canvas's Legend button, a short legend says it in words: "Where this run
// parts from the run of 10:42, after Student's reply" with the two arrows named —
// folded to that line on a small canvas (200 % zoom), as the overview map goes.
import "./fork.css";
import { useEffect, useRef, useState } from "react";
import { backend } from "../../backend";
import { useEditor } from "../../editor/store";
import { arrowsOf } from "../../graph/refs";
import { partingArrows, whereRunsPart } from "../../run/parting";
import { partingStore, useParting } from "../../run/partingStore";
import { useRun } from "../../run/store";
import { moveSource, moveTarget } from "../../run/words";
import type { Handoff } from "../../run/reducer";
import { runTime } from "./RunsList";
import { useNames } from "./useNames";

export function ForkLegend() {
  useForkParting();
  const origin = useParting((s) => s.origin);
  const parting = useParting((s) => s.parting);
  const marked = useParting((s) => s.taken.length + s.parted.length > 0);
  const runId = useRun((s) => s.view?.runId ?? "");
  const names = useNames();
  const box = useRef<HTMLDetailsElement>(null);
  const roomy = useRoomyCanvas(box, origin !== null && parting !== null);
  const [unfolded, setUnfolded] = useState<boolean | null>(null);
  // (The person's choice once made; till then, unfolded when there is room. A toggle
  // event the browser sends for the open state drawn is no choice.)
  const open = unfolded ?? roomy;
  if (!origin || origin.runId !== runId || !parting) return null;
  const moves = (list: Handoff[]) => list.map((move) => `${moveSource(move, names)} → ${moveTarget(move, names)}`).join(", ");
  const who = names(parting.agent);
  return (
    <details ref={box} className="fork-legend" open={open} onToggle={(e) => e.currentTarget.open !== open && setUnfolded(e.currentTarget.open)}>
      <summary>
        <b>Where this run parts from the run of {runTime(origin.first.created_at)}</b>, after {who}'s reply
      </summary>
      {parting.fork.length === 0 ? (
        <p>This run has not moved on from there yet.</p>
      ) : !marked ? (
        <p>Both runs went the same way from there ({moves(parting.fork)}).</p>
      ) : (
        <ul>
          <li>
            <svg width="30" height="10" aria-hidden>
              <line x1="0" y1="5" x2="30" y2="5" stroke="var(--accent)" strokeWidth="3.5" />
            </svg>
            <span>this run: {moves(parting.fork)}</span>
          </li>
          {parting.first.length > 0 && (
            <li>
              <svg width="30" height="10" aria-hidden>
                <line x1="0" y1="5" x2="30" y2="5" stroke="var(--muted)" strokeWidth="2" strokeDasharray="5 4" opacity="0.6" />
              </svg>
              <span>the first run: {moves(parting.first)}</span>
            </li>
          )}
        </ul>
      )}
    </details>
  );
}

/** Whether the canvas has room for the legend unfolded (as for the overview map). */
function useRoomyCanvas(box: React.RefObject<HTMLElement | null>, shown: boolean): boolean {
  const [roomy, setRoomy] = useState(true);
  useEffect(() => {
    const canvas = shown ? box.current?.closest<HTMLElement>(".react-flow") : null;
    if (!canvas) return;
    const measure = () => setRoomy(canvas.clientWidth === 0 || (canvas.clientWidth >= 640 && canvas.clientHeight >= 380));
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(canvas);
    return () => observer.disconnect();
  }, [box, shown]);
  return roomy;
}

/** Loads the first run of the fork shown, and keeps where the two part up to date
 * as the fork's events come in. */
function useForkParting(): void {
  const runId = useRun((s) => s.view?.runId ?? "");
  const ended = useRun((s) => s.ended);
  const events = useRun((s) => s.events);
  const graph = useEditor((s) => s.document?.graph ?? null);
  const origin = useParting((s) => s.origin);

  // biome-ignore lint/correctness/useExhaustiveDependencies: ended is a trigger (a fork stored since, listed now)
  useEffect(() => {
    const known = partingStore.getState().origin;
    if (known?.runId === runId) return;
    if (known) partingStore.getState().setOrigin(null);
    if (!runId) return;
    let current = true;
    (async () => {
      const runs = await backend.listRuns();
      const from = runs.find((run) => run.id === runId)?.forked_from;
      if (!current || !from) return;
      const first = runs.find((run) => run.id === from.run_id) ?? { id: from.run_id, input: "", created_at: "" };
      const parentEvents = await backend.runEvents(from.run_id);
      if (current) partingStore.getState().setOrigin({ runId, first, at: Number(from.seq), events: parentEvents });
    })().catch(() => {});
    return () => {
      current = false;
    };
  }, [runId, ended]);

  useEffect(() => {
    if (!origin?.events || origin.runId !== runId) return;
    const parting = whereRunsPart(origin.events, events, origin.at);
    partingStore.getState().setParting(parting, partingArrows(parting, graph ? arrowsOf(graph) : []));
  }, [origin, runId, events, graph]);
}
