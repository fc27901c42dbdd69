// How long events take from the engine to the screen, for the speed figures
// (BENCHMARKS.md, issue 6): once `paintDelays.start()` is called (by the end-to-end
// test, through `window.crewgraph.paintDelays`), each folded batch records, per
// event, the time from the event's timestamp to just after the frame that shows it
// (a setTimeout queued from the next animation frame runs after that frame's paint).
// Off, it costs one boolean check per batch.
import type { RunEvent } from "../bindings/RunEvent";

let recording = false;
let samples: number[] = [];
/** Per batch: from its arrival in the page to just after the frame that shows it. */
let batches: number[] = [];
/** Per update of the window: where its time went. */
let updates: UpdateParts[] = [];

/** One update of the window, in ms: folding its events into the view, React's
 * render and commit (the DOM changed, layout effects run), waiting for the next
 * frame, and that frame's own work (style, layout, paint) until just after it. */
export type UpdateParts = { events: number; fold: number; render: number; wait: number; frame: number };

export const paintDelays = {
  start() {
    recording = true;
    samples = [];
    batches = [];
    updates = [];
  },
  /** Per update, where its time went (in the order they were drawn). */
  updates(): UpdateParts[] {
    return updates;
  },
  /** Per batch, the ms from its arrival to just after its frame (the page's share). */
  batches(): number[] {
    return batches;
  },
  /** Stops recording; the delays in ms, in the order they were measured. */
  stop(): number[] {
    recording = false;
    return samples;
  },
  /** Called by the window's feed right after it folded `events` events into the
   * view, from `began` (performance.now()): React renders in a microtask queued
   * while folding, so one queued now runs once React has committed. */
  update(began: number, events: number) {
    if (!recording) return;
    const folded = performance.now();
    queueMicrotask(() => {
      const rendered = performance.now();
      requestAnimationFrame(() => {
        const frame = performance.now();
        setTimeout(() => {
          updates.push({ events, fold: folded - began, render: rendered - folded, wait: frame - rendered, frame: performance.now() - frame });
        }, 0);
      });
    });
  },
  /** Called by the run store once a batch's events are folded into the view. */
  folded(events: RunEvent[], arrived: number) {
    if (!recording || events.length === 0) return;
    const made = events.map((e) => Date.parse(e.timestamp));
    requestAnimationFrame(() =>
      setTimeout(() => {
        const shown = Date.now();
        for (const at of made) if (Number.isFinite(at)) samples.push(shown - at);
        batches.push(shown - arrived);
      }, 0),
    );
  },
};
