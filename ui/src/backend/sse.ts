// The server-sent events text format (https://html.spec.whatwg.org/#parsing-an-event-stream),
// read by hand because `EventSource` cannot send the server's token. `SseParser` turns
// text, in chunks cut anywhere, into messages; `readSse` does it for a fetch()
// response's body. No I/O of its own, so the tests feed it strings.
//
//   const parser = new SseParser();
//   parser.push("id: 3\ndata: {\"seq\":3}\n\n"); // → [{ id: "3", event: "message", data: "{\"seq\":3}" }]

/** One dispatched message. */
export type SseMessage = {
  /** The last event id as of this message (its own `id:`, else an earlier one's). */
  id: string | null;
  /** The `event:` name; "message" when it had none. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
};

/** Reads the event stream format chunk by chunk. Lines end in "\n", "\r\n" or "\r"
 * (also split across chunks); a blank line dispatches the message gathered so far;
 * lines starting with ":" are comments (keep-alives); unknown fields are ignored. */
export class SseParser {
  private buffer = "";
  /** The previous chunk ended in "\r": a "\n" opening the next one belongs to it. */
  private afterCr = false;
  private lastId: string | null = null;
  private event = "";
  private data: string[] = [];

  /** Takes the next piece of text; answers the messages it completed. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.afterCr && text.startsWith("\n")) text = text.slice(1);
    this.afterCr = false;
    this.buffer += text;
    const messages: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      const message = this.line(this.buffer.slice(start, i));
      if (message) messages.push(message);
      if (c === "\r") {
        if (i + 1 === this.buffer.length) this.afterCr = true;
        else if (this.buffer[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  /** The stream ended: a message without its blank line is dropped, as the format says. */
  end(): void {
    this.buffer = "";
    this.afterCr = false;
    this.event = "";
    this.data = [];
  }

  private line(line: string): SseMessage | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      // `retry` and anything else: nothing to do here.
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const { data, event } = this;
    this.data = [];
    this.event = "";
    if (data.length === 0) return null;
    return { id: this.lastId, event: event || "message", data: data.join("\n") };
  }
}

/** The messages of an event stream's body as they arrive; ends when the body does.
 * Stopping the loop early cancels the body (the connection closes). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    parser.end();
  } finally {
    reader.cancel().catch(() => {});
  }
}
