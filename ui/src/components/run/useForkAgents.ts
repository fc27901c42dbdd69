// Whose reply each listed fork was forked at (issue 18, item 3), for the sidebar's
// "forked at Student's reply": the agent of the reply replaced, read from the first
// run's stored events (its `forked_from.seq`), asked of the backend once per fork
// for the window's life (a stored reply never changes). Every list drawn then is
// drawn again when an answer comes — also one whose runs changed while it was
// asked (a run's end refreshes the list), which would otherwise keep saying
// "forked from another run".
import { useEffect, useState } from "react";
import { backend } from "../../backend";
import type { RunSummary } from "../../bindings/RunSummary";

/** Fork's run id → the agent (null: not known, or not yet). */
const known = new Map<string, string | null>();

/** The lists drawn now: each redraws itself when an answer comes. */
const drawn = new Set<() => void>();

export function useForkAgents(runs: readonly RunSummary[]): Record<string, string | null> {
  const [, redraw] = useState(0);
  useEffect(() => {
    const again = () => redraw((n) => n + 1);
    drawn.add(again);
    return () => {
      drawn.delete(again);
    };
  }, []);
  useEffect(() => {
    const wanted = runs.filter((run) => run.forked_from && !known.has(run.id));
    if (wanted.length === 0) return;
    for (const run of wanted) known.set(run.id, null);
    (async () => {
      for (const run of wanted) {
        const from = run.forked_from;
        if (!from) continue;
        const events = await backend.runEvents(from.run_id).catch(() => []);
        const reply = events.find((e) => e.seq === Number(from.seq));
        known.set(run.id, reply && reply.type === "agent_response" ? reply.agent : null);
      }
      for (const again of drawn) again();
    })();
  }, [runs]);
  return Object.fromEntries(runs.filter((run) => run.forked_from).map((run) => [run.id, known.get(run.id) ?? null]));
}
