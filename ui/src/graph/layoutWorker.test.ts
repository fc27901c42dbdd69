// ELK's worker is let go once layouts have stopped for WORKER_IDLE_MS, and the next
// layout starts a new one (layout.ts). The worker is elkjs's API class, stood in for
// here: Node has no Web Worker.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examGraph } from "./fixtures";

const started: { terminated: boolean }[] = [];

vi.mock("elkjs/lib/elk-api.js", () => {
  // Lays nothing out: what is checked here is when the worker lives, not where
  // cards go (layout.test.ts checks that on the real ELK).
  class InWorker {
    readonly state = { terminated: false };
    constructor() {
      started.push(this.state);
    }
    layout(graph: unknown) {
      return Promise.resolve(graph);
    }
    terminateWorker() {
      this.state.terminated = true;
    }
  }
  return { default: InWorker };
});

describe("ELK's worker", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    vi.stubGlobal("Worker", class {});
    // A fresh layout module each time: no worker from the test before.
    vi.resetModules();
    started.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("is let go once layouts have stopped for a while, and started again by the next", async () => {
    const { layoutIn, WORKER_IDLE_MS } = await import("./layout");
    await layoutIn(examGraph, "RIGHT");
    await layoutIn(examGraph, "DOWN");
    expect(started).toHaveLength(1);
    vi.advanceTimersByTime(WORKER_IDLE_MS - 1);
    expect(started[0].terminated).toBe(false);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(started[0].terminated).toBe(true));

    const again = await layoutIn(examGraph, "RIGHT");
    expect(again.nodes.size).toBe(examGraph.nodes.length);
    expect(started).toHaveLength(2);
    expect(started[1].terminated).toBe(false);
  });

  it("is kept while layouts keep coming: the idle time starts again after each", async () => {
    const { layoutIn, WORKER_IDLE_MS } = await import("./layout");
    await layoutIn(examGraph, "RIGHT");
    vi.advanceTimersByTime(WORKER_IDLE_MS - 1);
    await layoutIn(examGraph, "DOWN");
    vi.advanceTimersByTime(WORKER_IDLE_MS - 1);
    expect(started).toHaveLength(1);
    expect(started[0].terminated).toBe(false);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(started[0].terminated).toBe(true));
  });
});
