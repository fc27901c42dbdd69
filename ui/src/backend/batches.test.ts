import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import { RunBatcher } from "./batches";

const token = (seq: number): RunEvent => ({ run_id: "run-1", seq, timestamp: "2025-01-01T00:00:00Z", type: "token", agent: "teacher", text: `t${seq}` });
const seqs = (batches: RunBatch[]) => batches.map((b) => b.events.map((e) => e.seq));

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RunBatcher", () => {
  it("sends the events of one 50 ms window as one batch", () => {
    // Hundreds of tokens a second must cost the window a few updates, not hundreds.
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    batcher.push(token(0));
    vi.advanceTimersByTime(20);
    batcher.push(token(1));
    batcher.push(token(2));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(30);
    expect(sent).toEqual([{ events: [token(0), token(1), token(2)], end: null, lost_from: null }]);
  });

  it("opens the next window with the next event, and sends nothing while quiet", () => {
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    batcher.push(token(0));
    vi.advanceTimersByTime(50);
    vi.advanceTimersByTime(500);
    batcher.push(token(1));
    vi.advanceTimersByTime(49);
    expect(seqs(sent)).toEqual([[0]]);
    vi.advanceTimersByTime(1);
    expect(seqs(sent)).toEqual([[0], [1]]);
  });

  it("never merges or drops events: every seq once, in order, across many batches", () => {
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    for (let seq = 0; seq < 1000; seq++) {
      batcher.push(token(seq));
      vi.advanceTimersByTime(seq % 7);
    }
    batcher.finish("finished");
    const all = sent.flatMap((b) => b.events);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(all).toEqual(Array.from({ length: 1000 }, (_, i) => token(i)));
    expect(sent.length).toBeLessThan(200);
  });

  it("puts the events still gathering into the last batch, with how the watch ended", () => {
    // As forward_batches does: the end travels with the last events, not after them.
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    batcher.push(token(0));
    batcher.finish("finished");
    expect(sent).toEqual([{ events: [token(0)], end: "finished", lost_from: null }]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(1);
  });

  it("sends an empty last batch when the watch ends quiet, and lost_from with interrupted", () => {
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    batcher.finish("interrupted", 12);
    expect(sent).toEqual([{ events: [], end: "interrupted", lost_from: 12n }]);
  });

  it("sends nothing after the last batch", () => {
    const sent: RunBatch[] = [];
    const batcher = new RunBatcher((b) => sent.push(b));
    batcher.finish("finished");
    batcher.push(token(0));
    batcher.finish("lagged");
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([{ events: [], end: "finished", lost_from: null }]);
  });
});
