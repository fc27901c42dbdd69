import { describe, expect, it } from "vitest";
import { readSse, SseParser, type SseMessage } from "./sse";

/** Every message `chunks` make, fed one after another to one parser. */
function parse(...chunks: string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

/** The text cut into pieces of `size` characters. */
const cut = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const stream = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

describe("SseParser", () => {
  it("reads the server's run events: id and data, no event name", () => {
    expect(parse('id: 0\ndata: {"seq":0}\n\nid: 1\ndata: {"seq":1}\n\n')).toEqual([
      { id: "0", event: "message", data: '{"seq":0}' },
      { id: "1", event: "message", data: '{"seq":1}' },
    ]);
  });

  it("reads named messages (the server's interrupted and lagged)", () => {
    expect(parse('event: lagged\ndata: {"message":"reconnect"}\n\n')).toEqual([{ id: null, event: "lagged", data: '{"message":"reconnect"}' }]);
  });

  it("gives the same messages however the text is cut, even inside a \\r\\n", () => {
    // A client cannot choose where the network splits the stream.
    const text = 'id: 7\r\nevent: interrupted\r\ndata: {"lost_from":8}\r\n\r\nid: 8\rdata: x\r\r: keep-alive\n\ndata: y\n\n';
    const whole = parse(text);
    expect(whole).toEqual([
      { id: "7", event: "interrupted", data: '{"lost_from":8}' },
      { id: "8", event: "message", data: "x" },
      { id: "8", event: "message", data: "y" },
    ]);
    for (const size of [1, 2, 3, 5, 13]) expect(parse(...cut(text, size)), `cut every ${size}`).toEqual(whole);
  });

  it("joins multi-line data with newlines and strips only one space after the colon", () => {
    expect(parse("data:first\ndata:  second\ndata\n\n")).toEqual([{ id: null, event: "message", data: "first\n second\n" }]);
  });

  it("skips comments (keep-alives) and dispatches nothing for a blank line without data", () => {
    // Keep-alives arrive every 15 s on a quiet stream; they are not events.
    expect(parse(": keep-alive\n\n:\n\n\n\n")).toEqual([]);
  });

  it("keeps the last id for later messages and resets the event name after each one", () => {
    expect(parse("id: 4\nevent: lagged\ndata: a\n\ndata: b\n\n")).toEqual([
      { id: "4", event: "lagged", data: "a" },
      { id: "4", event: "message", data: "b" },
    ]);
  });

  it("ignores unknown fields and retry, and an id holding NUL", () => {
    expect(parse("retry: 10\nfoo: bar\nid: 1\u00002\ndata: z\n\n")).toEqual([{ id: null, event: "message", data: "z" }]);
  });

  it("waits for the blank line: a message cut off by the end of the stream is dropped", () => {
    const parser = new SseParser();
    expect(parser.push("id: 1\ndata: half")).toEqual([]);
    parser.end();
    expect(parser.push("\n\n")).toEqual([]);
  });
});

describe("readSse", () => {
  it("decodes a body cut inside a multi-byte character", async () => {
    // "ễ" is three bytes in UTF-8; the network may split them.
    const bytes = new TextEncoder().encode("data: Thi vấn đáp ễ\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 2) controller.enqueue(bytes.slice(i, i + 2));
        controller.close();
      },
    });
    const messages = [];
    for await (const message of readSse(body)) messages.push(message);
    expect(messages).toEqual([{ id: null, event: "message", data: "Thi vấn đáp ễ" }]);
  });

  it("yields messages as they arrive and stops at the end of the body", async () => {
    const messages = [];
    for await (const message of readSse(stream("id: 0\ndata: a\n\n", "id: 1\nda", "ta: b\n\n"))) messages.push(message.data);
    expect(messages).toEqual(["a", "b"]);
  });
});
