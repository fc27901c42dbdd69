import { describe, expect, it, vi } from "vitest";
import { readSse, type SseMessage } from "./sse";

/** A body that sends `chunks` (bytes, or text encoded as UTF-8) and ends. */
const body = (...chunks: Array<string | Uint8Array>) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
      controller.close();
    },
  });

/** Every message of a body sending `chunks`. */
async function read(...chunks: Array<string | Uint8Array>): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(body(...chunks))) messages.push(message);
  return messages;
}

/** The text's UTF-8 bytes cut into pieces of `size` bytes (inside characters too). */
const cut = (text: string, size: number) => {
  const bytes = new TextEncoder().encode(text);
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.slice(i * size, (i + 1) * size));
};

describe("readSse", () => {
  it("reads the server's batches: event name, id and data", async () => {
    expect(await read('event: batch\nid: 1\ndata: {"events":[]}\n\nid: 2\ndata: {"seq":2}\n\n')).toEqual([
      { id: "1", event: "batch", data: '{"events":[]}' },
      { id: "2", event: "message", data: '{"seq":2}' },
    ]);
  });

  it("gives the same messages however the body is cut, even inside a \\r\\n or a character", async () => {
    // A client cannot choose where the network splits the stream; "ễ" is three bytes.
    const text = 'id: 7\r\nevent: interrupted\r\ndata: {"lost_from":8}\r\n\r\nid: 8\rdata: Thi vấn đáp ễ\r\r: keep-alive\n\ndata: y\n\n';
    const whole = await read(text);
    expect(whole).toEqual([
      { id: "7", event: "interrupted", data: '{"lost_from":8}' },
      { id: "8", event: "message", data: "Thi vấn đáp ễ" },
      { id: null, event: "message", data: "y" },
    ]);
    for (const size of [1, 2, 3, 5, 13]) expect(await read(...cut(text, size)), `cut every ${size} bytes`).toEqual(whole);
  });

  it("joins multi-line data with newlines and strips only one space after the colon", async () => {
    expect(await read("data:first\ndata:  second\ndata\n\n")).toEqual([{ id: null, event: "message", data: "first\n second\n" }]);
  });

  it("skips comments (keep-alives), and a blank line without data dispatches nothing", async () => {
    // Keep-alives arrive every 15 s on a quiet stream; they are not events.
    expect(await read(": keep-alive\n\n:\n\n\n\n")).toEqual([]);
  });

  it("waits for the blank line: a message cut off by the end of the body is dropped", async () => {
    expect(await read("id: 1\ndata: whole\n\n", "id: 2\ndata: half")).toEqual([{ id: "1", event: "message", data: "whole" }]);
  });

  it("yields each message as it arrives, before the body ends", async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let cancelled = false;
    const open = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        cancelled = true;
      },
    });
    const messages = readSse(open);
    controller.enqueue(new TextEncoder().encode("data: a\n\nda"));
    expect((await messages.next()).value).toEqual({ id: null, event: "message", data: "a" });
    controller.enqueue(new TextEncoder().encode("ta: b\n\n"));
    expect((await messages.next()).value).toMatchObject({ data: "b" });
    // Stopping early closes the connection.
    await messages.return(undefined);
    await vi.waitFor(() => expect(cancelled).toBe(true));
  });

  it("throws when the connection breaks", async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const broken = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
    });
    const messages = readSse(broken);
    controller.enqueue(new TextEncoder().encode("data: a\n\n"));
    expect((await messages.next()).value).toMatchObject({ data: "a" });
    controller.error(new TypeError("network error"));
    await expect(messages.next()).rejects.toThrow("network error");
  });
});
