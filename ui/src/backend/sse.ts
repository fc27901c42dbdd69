// A fetch() response's body read as server-sent events, with `eventsource-parser`
// (the event stream format: lines ending in "\n", "\r\n" or "\r", cut anywhere;
// comments; a blank line dispatching a message) — `EventSource` cannot send the
// server's token, so the UI reads the stream itself. No I/O of its own beyond the
// body it is given, so the tests feed it streams of strings.
//
//   for await (const message of readSse(response.body)) handle(message.event, message.data);
import { EventSourceParserStream } from "eventsource-parser/stream";

/** One dispatched message. */
export type SseMessage = {
  /** Its own `id:`, when it had one. */
  id: string | null;
  /** The `event:` name; "message" when it had none (as `EventSource` says it). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
};

/** The messages of an event stream's body as they arrive; ends when the body does
 * (a message cut off by the end, without its blank line, is dropped, as the format
 * says). Stopping the loop early cancels the body (the connection closes). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  // (Widened to what TextDecoderStream takes: a Uint8Array is a BufferSource.)
  const reader = (body as ReadableStream<BufferSource>)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { id: value.id ?? null, event: value.event ?? "message", data: value.data };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
