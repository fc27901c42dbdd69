import { describe, expect, it } from "vitest";
import type { RunBatch } from "../../bindings/RunBatch";
import { events, examRun } from "../../run/fixtures";
import { joined } from "./runActions";

describe("batches waiting for a frame", () => {
  it("are folded into one: every event once, in order, with the last batch's end", () => {
    const all = examRun();
    const batches: RunBatch[] = [
      { events: all.slice(0, 3), end: null, lost_from: null },
      { events: all.slice(3, 10), end: null, lost_from: null },
      { events: all.slice(10), end: "finished", lost_from: null },
    ];
    const one = joined(batches);
    expect(one.events.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(one.end).toBe("finished");
    expect(one.lost_from).toBeNull();
  });

  it("keep an interrupted watch's lost events known, and a single batch is passed as it is", () => {
    const tail = events([{ type: "warning", message: "stopping" }], "run-1", 4);
    const batches: RunBatch[] = [
      { events: examRun().slice(0, 4), end: null, lost_from: null },
      { events: tail, end: "interrupted", lost_from: 5n },
    ];
    expect(joined(batches)).toMatchObject({ end: "interrupted", lost_from: 5n });
    expect(joined([batches[1]])).toBe(batches[1]);
  });
});
