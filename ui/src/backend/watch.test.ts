import { describe, expect, it, vi } from "vitest";
import type { RunBatch } from "../bindings/RunBatch";
import type { RunEvent } from "../bindings/RunEvent";
import { BackendError } from "./Backend";
import { watchEvents } from "./watch";

const event = (seq: number): RunEvent => ({ run_id: "run-1", seq, timestamp: "2025-01-01T00:00:00Z", type: "token", agent: "host", text: `t${seq}` });
/** One batch message as the server sends it (`?batches=true`), holding events `seqs`. */
const batch = (seqs: number[], end: string | null = null, lostFrom: number | null = null) => {
  const id = seqs.length > 0 ? `id: ${seqs.at(-1)}\n` : "";
  return `event: batch\n${id}data: ${JSON.stringify({ events: seqs.map(event), end, lost_from: lostFrom })}\n\n`;
};
/** The last batch of a leg that finished. */
const finished = batch([], "finished");

/** An event stream the test writes to as the server would. */
function serverStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  return {
    response: new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } }),
    send: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    close: () => controller.close(),
    break: () => controller.error(new TypeError("network error")),
  };
}

/** A stream that says `text` and ends. */
const answer = (text: string) => {
  const stream = serverStream();
  stream.send(text);
  stream.close();
  return stream.response;
};

/** An `open` answering each call with the next of `responses`, remembering the `after` asked. */
function opener(...responses: Array<Response | Error>) {
  const asked: Array<number | null> = [];
  const open = async (after: number | null) => {
    asked.push(after);
    const next = responses.shift();
    if (!next) throw new BackendError("not_found", "no more answers");
    if (next instanceof Error) throw next;
    return next;
  };
  return { open, asked };
}

/** Watches to the end, gathering the batches. */
async function watch(open: (after: number | null) => Promise<Response>, after: number | null = null) {
  const batches: RunBatch[] = [];
  const { done } = await watchEvents(open, after, (b) => void batches.push(b));
  await done;
  return batches;
}

const seqs = (batches: RunBatch[]) => batches.flatMap((b) => b.events.map((e) => e.seq));
const ends = (batches: RunBatch[]) => batches.map((b) => b.end);

describe("watchEvents", () => {
  it("hands on every event in order, and the last batch says the leg finished", async () => {
    const { open, asked } = opener(answer(`: keep-alive\n\n${batch([0, 1])}${batch([2, 3])}${finished}`));
    const batches = await watch(open);
    expect(asked).toEqual([null]);
    expect(seqs(batches)).toEqual([0, 1, 2, 3]);
    expect(ends(batches)).toEqual([null, null, "finished"]);
    expect(batches.at(-1)?.lost_from).toBeNull();
  });

  it("hands on the server's batches as they come, without gathering them again", async () => {
    // The server batches as the app does; a second window here would only delay them.
    const stream = serverStream();
    const batches: RunBatch[] = [];
    const { done } = await watchEvents(async () => stream.response, null, (b) => void batches.push(b));
    stream.send(batch([0, 1, 2]));
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    stream.send(batch([3]));
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    stream.send(batch([4], "finished"));
    stream.close();
    await done;
    expect(batches.map((b) => b.events.map((e) => e.seq))).toEqual([[0, 1, 2], [3], [4]]);
    expect(ends(batches)).toEqual([null, null, "finished"]);
  });

  it("closes the stream once the page no longer wants the watch, and hands nothing more on", async () => {
    const stream = serverStream();
    const opened: AbortSignal[] = [];
    // (fetch errors a body whose signal aborts: the stand-in stream does the same.)
    const open = async (_after: number | null, signal: AbortSignal) => {
      opened.push(signal);
      signal.addEventListener("abort", () => stream.break());
      return stream.response;
    };
    const batches: RunBatch[] = [];
    let wanted = true;
    const { done } = await watchEvents(open, null, async (b) => {
      batches.push(b);
      return wanted;
    });
    stream.send(batch([0]));
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    expect(opened[0].aborted).toBe(false);
    // The person left the run: the page drops the next batch and says so.
    wanted = false;
    stream.send(batch([1]));
    await done;
    expect(opened).toHaveLength(1); // not opened again
    expect(opened[0].aborted).toBe(true);
    expect(seqs(batches)).toEqual([0, 1]);
  });

  it("starts after the event it is given, and 204 (nothing after it) ends at once", async () => {
    const { open, asked } = opener(new Response(null, { status: 204 }));
    const batches = await watch(open, 41);
    expect(asked).toEqual([41]);
    expect(batches).toEqual([{ events: [], end: "finished", lost_from: null }]);
  });

  it("comes back after a lag from the last event it has, and the window never sees the lag", async () => {
    // The server drops a client that reads too slowly; it must catch up by itself.
    const { open, asked } = opener(answer(`${batch([0, 1])}${batch([2], "lagged")}`), answer(`${batch([3, 4])}${finished}`));
    const batches = await watch(open);
    expect(asked).toEqual([null, 2]);
    expect(seqs(batches)).toEqual([0, 1, 2, 3, 4]);
    expect(ends(batches).filter(Boolean)).toEqual(["finished"]);
  });

  it("ends lagged when coming back after a lag fails", async () => {
    const { open, asked } = opener(answer(`${batch([0])}${batch([], "lagged")}`), new BackendError("unavailable", "gone"));
    const batches = await watch(open);
    expect(asked).toEqual([null, 0]);
    expect(seqs(batches)).toEqual([0]);
    expect(ends(batches).at(-1)).toBe("lagged");
  });

  it("ends interrupted, with lost_from, when the server stops", async () => {
    const { open } = opener(answer(`${batch([0, 1])}${batch([2], "interrupted", 2)}`));
    const batches = await watch(open);
    expect(seqs(batches)).toEqual([0, 1, 2]);
    expect(batches.at(-1)).toMatchObject({ end: "interrupted", lost_from: 2n });
  });

  it("comes back after a broken connection from the last event it has", async () => {
    const first = serverStream();
    first.send(batch([0, 1]));
    const { open, asked } = opener(first.response, answer(`${batch([2])}${finished}`));
    const batches: RunBatch[] = [];
    const { done } = await watchEvents(open, null, (b) => void batches.push(b));
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    first.break();
    await done;
    expect(asked).toEqual([null, 1]);
    expect(seqs(batches)).toEqual([0, 1, 2]);
    expect(ends(batches).filter(Boolean)).toEqual(["finished"]);
  });

  it("comes back when a stream ends without saying how the leg ended", async () => {
    // The server always ends with a batch that says; a stream cut short (a proxy) did not.
    const { open, asked } = opener(answer(batch([0, 1])), new Response(null, { status: 204 }));
    const batches = await watch(open);
    expect(asked).toEqual([null, 1]);
    expect(seqs(batches)).toEqual([0, 1]);
    expect(ends(batches)).toEqual([null, "finished"]);
  });

  it("ends interrupted when the connection broke and the server is gone", async () => {
    const first = serverStream();
    first.send(batch([0]));
    const { open, asked } = opener(first.response, new BackendError("unavailable", "gone"));
    const batches: RunBatch[] = [];
    const { done } = await watchEvents(open, null, (b) => void batches.push(b));
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    first.break();
    await done;
    expect(asked).toEqual([null, 0]);
    expect(seqs(batches)).toEqual([0]);
    expect(batches.at(-1)).toMatchObject({ end: "interrupted", lost_from: null });
  });

  it("gives up after coming back twice without receiving an event", async () => {
    const { open, asked } = opener(answer(batch([0])), answer(""), answer(""), answer(""));
    const batches = await watch(open);
    expect(asked).toEqual([null, 0, 0]);
    expect(batches.at(-1)).toMatchObject({ events: [], end: "interrupted" });
  });

  it("hands on an event it already has only once", async () => {
    const { open } = opener(answer(`${batch([5, 6])}${batch([6, 7])}${finished}`));
    expect(seqs(await watch(open, 5))).toEqual([6, 7]);
  });

  it("rejects when the stream cannot be opened (no such run), sending no batch", async () => {
    const batches: RunBatch[] = [];
    const { open } = opener(new BackendError("not_found", "no run 'x'"));
    await expect(watchEvents(open, null, (b) => void batches.push(b))).rejects.toMatchObject({ code: "not_found" });
    expect(batches).toEqual([]);
  });
});
