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
 * frame, and that frame's own work (style, layout, paint) until just after it —
 * the run dock shown; then the graph's turn (React drawing it, and the frame after)
 * until just after that frame (store.ts, `graph`). */
export type UpdateParts = { events: number; fold: number; render: number; wait: number; frame: number; graph: number };

/** What the feed says of an update as it is drawn (`paintDelays.update`). */
export type UpdateTimer = {
  /** Just after the frame that showed the update in the run dock. */
  docked(): void;
  /** Just after the frame that showed it on the graph as well. */
  drawn(): void;
};

const untimed: UpdateTimer = { docked() {}, drawn() {} };

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
   * while folding, so one queued now runs once React has committed. The feed tells
   * the answer when the update was shown in the run dock, then on the graph. */
  update(began: number, events: number): UpdateTimer {
    if (!recording) return untimed;
    const folded = performance.now();
    let rendered = folded;
    let frame = folded;
    let docked = folded;
    queueMicrotask(() => {
      rendered = performance.now();
      requestAnimationFrame(() => {
        frame = performance.now();
      });
    });
    return {
      docked() {
        docked = performance.now();
      },
      drawn() {
        const parts = { fold: folded - began, render: rendered - folded, wait: frame - rendered, frame: docked - frame };
        updates.push({ events, ...parts, graph: performance.now() - docked });
      },
    };
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
