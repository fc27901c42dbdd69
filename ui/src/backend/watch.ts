// Watching a run over HTTP: `GET /runs/{id}/events` read as server-sent events
// (sse.ts) and handed to the window in batches (batches.ts), with the same ends as
// the app's watch (src-tauri/crates/crewgraph/src/api/batches.rs):
//
// - the server closes the stream after the leg's `run_finished` (or after the stored
//   events of a run going on nowhere), and 204 means nothing after that point and
//   nothing to come: the last batch says "finished";
// - `event: interrupted` (the server is stopping): "interrupted", with `lost_from`;
// - `event: lagged` (this page read too slowly and was dropped), or a connection that
//   broke: watched again at once from the last event received, so the window sees
//   nothing of it; only when that fails does the last batch say "lagged" (or
//   "interrupted", for a broken connection).
//
//   const { done } = await watchEvents((after) => fetch(eventsUrl(after)), null, onBatch);
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { WatchEnd } from "../bindings/WatchEnd";
import { BATCH_WINDOW_MS, RunBatcher } from "./batches";
import { readSse } from "./sse";

/** Opens the run's event stream after event `after` (null: from its first event).
 * Rejects (with a BackendError) when the server refuses: no such run, no token. */
export type OpenEvents = (after: number | null) => Promise<Response>;

/** A watch going on in the background; `done` settles after its last batch. */
export type Watch = { done: Promise<void> };

/** How many times in a row a watch is opened again without receiving an event. */
const REOPENS = 2;

/** Watches a run from after `after`. Answers once the stream is open (rejecting when
 * it cannot be), then hands `onBatch` every event in batches, the last with `end`. */
export async function watchEvents(
  open: OpenEvents,
  after: number | null,
  onBatch: (batch: RunBatch) => void,
  windowMs = BATCH_WINDOW_MS,
): Promise<Watch> {
  const first = await open(after);
  const batcher = new RunBatcher(onBatch, windowMs);
  return { done: follow(first, open, after, batcher) };
}

/** How one stream stopped without ending the watch. */
type Cut = "lagged" | "broken";

async function follow(response: Response, open: OpenEvents, after: number | null, batcher: RunBatcher): Promise<void> {
  let last = after;
  let reopens = 0;
  for (;;) {
    if (response.status === 204 || !response.body) {
      batcher.finish("finished");
      return;
    }
    let cut: Cut | null = null;
    try {
      for await (const message of readSse(response.body)) {
        if (message.event === "message") {
          const event = JSON.parse(message.data) as RunEvent;
          if (last !== null && event.seq <= last) continue; // had it already
          batcher.push(event);
          last = event.seq;
          reopens = 0;
        } else if (message.event === "interrupted") {
          batcher.finish("interrupted", lostFrom(message.data));
          return;
        } else if (message.event === "lagged") {
          cut = "lagged";
          break;
        }
      }
    } catch {
      cut = "broken";
    }
    if (cut === null) {
      batcher.finish("finished");
      return;
    }
    const end: WatchEnd = cut === "lagged" ? "lagged" : "interrupted";
    if (++reopens > REOPENS) {
      batcher.finish(end);
      return;
    }
    try {
      response = await open(last);
    } catch {
      batcher.finish(end);
      return;
    }
  }
}

/** `lost_from` of an `interrupted` message's data (null: nothing was lost). */
function lostFrom(data: string): number | null {
  try {
    const { lost_from } = JSON.parse(data) as { lost_from?: unknown };
    return typeof lost_from === "number" ? lost_from : null;
  } catch {
    return null;
  }
}
