// A run's events for the window, in batches, as the Tauri shell makes them
// (src-tauri/crates/crewgraph/src/api/batches.rs, `forward_batches`): every event
// that arrived within a short window goes out as one `RunBatch`, so a model
// streaming hundreds of tokens a second costs the UI a few updates a second — and no
// event is merged or dropped (the reducer sees every `seq`). The last batch carries
// how the watch ended, with whatever events were still gathering.
//
//   const batcher = new RunBatcher(onBatch);
//   batcher.push(event);                   // opens a 50 ms window
//   batcher.finish("finished");           // → { events: [event], end: "finished", lost_from: null }
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import type { WatchEnd } from "../bindings/WatchEnd";

/** How long events are gathered before a batch goes out (as in the app). */
export const BATCH_WINDOW_MS = 50;

/** Gathers events into batches for `send`; the first event of a batch opens its window. */
export class RunBatcher {
  private events: RunEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ended = false;

  constructor(
    private readonly send: (batch: RunBatch) => void,
    private readonly windowMs = BATCH_WINDOW_MS,
  ) {}

  /** Adds an event to the batch gathering now (ignored once finished). */
  push(event: RunEvent): void {
    if (this.ended) return;
    this.events.push(event);
    this.timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  /** The last batch: the events still gathering, and how the watch ended. `lostFrom`
   * (with "interrupted"): events from this seq on were never stored. */
  finish(end: WatchEnd, lostFrom: number | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.stopTimer();
    const events = this.take();
    this.send({ events, end, lost_from: lostFrom === null ? null : BigInt(lostFrom) });
  }

  private flush(): void {
    this.timer = null;
    if (this.events.length > 0) this.send({ events: this.take(), end: null, lost_from: null });
  }

  private take(): RunEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
