// What the backend says an agent was given at one turn (`stepContext`), for the
// "What … saw" view: asked once the turn is over, again when another turn is opened.
// A turn's context is stored with its step, a moment after its reply streamed, so in
// a run this window watches a "no turn at step N" is asked again a few times, a
// little later each, before it is said; anything else the backend answers is said as
// it is (its errors are sentences).
import { useEffect, useState } from "react";
import { backend } from "../../backend";
import type { StepContext } from "../../bindings/StepContext";
import { runStore } from "../../run/store";

export type Asked =
  | { state: "waiting" }
  | { state: "loading" }
  | { state: "ready"; context: StepContext }
  | { state: "failed"; message: string };

/** How long to wait before asking again for a step a live run may not have stored yet. */
export const RETRY_MS = [250, 600, 1200, 2500];

/** What `agent` was given at step `step` of run `runId`; nothing is asked while the
 * turn is not over (`over` false: "waiting"). */
export function useStepContext(runId: string, step: number, agent: string, over: boolean): Asked {
  const key = `${runId}\u0000${step}\u0000${agent}`;
  const [answer, setAnswer] = useState<{ key: string; asked: Asked } | null>(null);

  useEffect(() => {
    if (!over) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const { replay, imported, view } = runStore.getState();
    // The run goes on (or just ended) in this window: its last step may not be stored yet.
    const live = replay === null && !imported && view?.runId === runId;
    const ask = (attempt: number) => {
      backend.stepContext(runId, step, agent).then(
        (context) => {
          if (!cancelled) setAnswer({ key, asked: { state: "ready", context } });
        },
        (error: unknown) => {
          if (cancelled) return;
          const code = (error as { code?: unknown } | null)?.code;
          if (live && code === "not_found" && attempt < RETRY_MS.length) {
            timer = setTimeout(() => ask(attempt + 1), RETRY_MS[attempt]);
            return;
          }
          setAnswer({ key, asked: { state: "failed", message: error instanceof Error ? error.message : String(error) } });
        },
      );
    };
    ask(0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [key, runId, step, agent, over]);

  if (!over) return { state: "waiting" };
  return answer?.key === key ? answer.asked : { state: "loading" };
}
