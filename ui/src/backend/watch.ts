// Watching a run over HTTP: `GET /runs/{id}/events?batches=true` read as server-sent
// events (sse.ts), one `RunBatch` a message, made by the server as the app makes
// them for the window (src-tauri/crates/crewgraph/src/api/batches.rs,
// `forward_batches`), so both transports hand the window the same batches. Their
// ends are the app's too, in the last batch's `end`:
//
// - "finished": the leg ended (after its `run_finished`, or the stored events of a
//   run going on nowhere); 204 means nothing after that point and nothing to come;
// - "interrupted" (the server is stopping), with `lost_from`;
// - "lagged" (this page read too slowly and was dropped), or a connection that broke
//   or ended without saying how: watched again at once from the last event received,
//   so the window sees nothing of it; only when that fails does the last batch say
//   "lagged" (or "interrupted", for a broken connection).
//
// A page that no longer wants the watch (`onBatch` answers `false`: the person left
// the run) ends it: the stream is closed, nothing more is handed on.
//
//   const { done } = await watchEvents((after, signal) => fetch(eventsUrl(after), { signal }), null, onBatch);
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { WatchEnd } from "../bindings/WatchEnd";
import type { OnBatch } from "./Backend";
import { readSse } from "./sse";

/** Opens the run's event stream, in batches, after event `after` (null: from its
 * first event), closed when `signal` aborts. Rejects (with a BackendError) when the
 * server refuses: no such run, no token. */
export type OpenEvents = (after: number | null, signal: AbortSignal) => Promise<Response>;

/** A watch going on in the background; `done` settles after its last batch. */
export type Watch = { done: Promise<void> };

/** How many times in a row a watch is opened again without receiving an event. */
const REOPENS = 2;

/** A batch as the server sends it (`lost_from` a JSON number). */
type SentBatch = { events: RunEvent[]; end: WatchEnd | null; lost_from: number | null };

/** Watches a run from after `after`. Answers once the stream is open (rejecting when
 * it cannot be), then hands `onBatch` every event in the server's batches, the last
 * with `end`. */
export async function watchEvents(open: OpenEvents, after: number | null, onBatch: OnBatch): Promise<Watch> {
  const stop = new AbortController();
  const first = await open(after, stop.signal);
  // (Told after the page drew a batch that it no longer wants the watch: closed.)
  const handOn = (batch: RunBatch) => {
    const answer = onBatch(batch);
    if (answer instanceof Promise) void answer.then((wanted) => wanted === false && stop.abort(), () => {});
  };
  return { done: follow(first, (from) => open(from, stop.signal), after, handOn, stop.signal) };
}

/** How one stream stopped without ending the watch. */
type Cut = "lagged" | "broken";

async function follow(
  response: Response,
  open: (after: number | null) => Promise<Response>,
  after: number | null,
  onBatch: (batch: RunBatch) => void,
  stopped: AbortSignal,
): Promise<void> {
  let last = after;
  let reopens = 0;
  const finish = (end: WatchEnd, events: RunEvent[] = [], lostFrom: number | null = null) =>
    onBatch({ events, end, lost_from: lostFrom === null ? null : BigInt(lostFrom) });
  for (;;) {
    if (response.status === 204 || !response.body) {
      finish("finished");
      return;
    }
    let cut: Cut = "broken";
    try {
      for await (const message of readSse(response.body)) {
        if (message.event !== "batch") continue;
        const batch = JSON.parse(message.data) as SentBatch;
        // A stream opened again may start with events this watch has had already.
        const events = batch.events.filter((event) => last === null || event.seq > last);
        const newest = events.at(-1);
        if (newest) {
          last = newest.seq;
          reopens = 0;
        }
        if (batch.end === "lagged") {
          if (events.length > 0) onBatch({ events, end: null, lost_from: null });
          cut = "lagged";
          break;
        }
        if (batch.end !== null) {
          finish(batch.end, events, batch.lost_from);
          return;
        }
        if (events.length > 0) onBatch({ events, end: null, lost_from: null });
      }
    } catch {
      cut = "broken";
    }
    if (stopped.aborted) return; // the page no longer wants it
    const end: WatchEnd = cut === "lagged" ? "lagged" : "interrupted";
    if (++reopens > REOPENS) {
      finish(end);
      return;
    }
    try {
      response = await open(last);
    } catch {
      finish(end);
      return;
    }
  }
}
