// "What Teacher saw" in words and proportions (components/run/SeenView.tsx): each
// model call of a turn named for a person ("1st call", "2nd call · after the tool
// results"), its token bar — the instructions, the messages shown, and the part the
// context window cut, against the model's window when it is known — said as
// "1,240 of 8,192 tokens" and "3 earlier messages were left out (about 420 tokens)",
// and who wrote each message it was shown (the person, an agent, a tool's answer,
// or the run itself: a reminder, a group's combined answers). Pure: no React.
//
//   callLabel(calls, 1);             // "2nd call · after the tool results"
//   tokenBar(call).parts;            // [{ kind: "instructions", tokens, share }, …]
//   cutWords(call);                  // "3 earlier messages were left out (about 420 tokens)"
import type { Message } from "../bindings/Message";
import type { SeenCall } from "../bindings/SeenCall";
import type { Turn } from "./reducer";
import type { Namer } from "./words";
import { dollars, seconds, tokenCount } from "./words";

/** "1st", "2nd", "3rd", "4th", "11th", "22nd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** The tab of call `index` of a turn's `calls`: the first is the "1st call"; a later
 * one says why the model was asked again — the tool results it had asked for (the
 * last message it was shown is a tool's answer), or asked again (an empty reply, or
 * a request its model found too long). */
export function callLabel(calls: readonly SeenCall[], index: number): string {
  const label = `${ordinal(index + 1)} call`;
  if (index === 0) return label;
  const last = calls[index]?.messages.at(-1);
  if (last?.role !== "tool") return `${label} · asked again`;
  // Which round of tool results this is: the earlier calls that followed some too.
  const round = calls.slice(1, index + 1).filter((c) => c.messages.at(-1)?.role === "tool").length;
  return `${label} · after the ${round > 1 ? `${ordinal(round)} ` : ""}tool results`;
}

export type BarPartKind = "instructions" | "messages" | "cut";

/** One part of the token bar: its tokens and its share of the bar (0–1). */
export type BarPart = { kind: BarPartKind; tokens: number; share: number };

/** The token bar of a call: the instructions and the messages it was sent, then the
 * part the context window cut (not sent), against its model's window when known
 * (what is left of the bar is the room the window had left); else the bar is what
 * it was sent and what was cut. */
export type TokenBar = { parts: BarPart[]; scale: number; window: number | null };

export function tokenBar(call: SeenCall): TokenBar {
  const instructions = Math.min(call.prompt_tokens, call.tokens);
  const messages = Math.max(0, call.tokens - instructions);
  const cut = call.cut.length > 0 ? call.cut_tokens : 0;
  const window = call.window ?? null;
  const scale = Math.max(window ?? 0, call.tokens + cut, 1);
  const parts: BarPart[] = [
    { kind: "instructions" as const, tokens: instructions },
    { kind: "messages" as const, tokens: messages },
    { kind: "cut" as const, tokens: cut },
  ]
    .filter((p) => p.tokens > 0)
    .map((p) => ({ ...p, share: p.tokens / scale }));
  return { parts, scale, window };
}

/** "1,240 of 8,192 tokens" (its model's window known), else "1,240 tokens". */
export function tokenHeadline(call: SeenCall): string {
  return call.window ? `${tokenCount(call.tokens)} of ${tokenCount(call.window)} tokens` : `${tokenCount(call.tokens)} tokens`;
}

/** What the headline is measured against, in words. */
export function windowWords(call: SeenCall): string {
  return call.window
    ? `sent to its model, whose context window holds ${tokenCount(call.window)}`
    : "sent to its model (how many its model can take is not known)";
}

/** "3 earlier messages were left out (about 420 tokens)"; null when nothing was. */
export function cutWords(call: SeenCall): string | null {
  const n = call.cut.length;
  if (n === 0) return null;
  const what = n === 1 ? "1 earlier message was" : `${n} earlier messages were`;
  return `${what} left out (about ${tokenCount(call.cut_tokens)} tokens)`;
}

/** The label and title of each part of the bar, for its legend. */
export const partWords: Record<BarPartKind, { label: string; title: string }> = {
  instructions: { label: "Instructions", title: "Its instructions (the system prompt), with the paragraph about its signals" },
  messages: { label: "Messages shown", title: "The conversation it was shown: what was asked, the replies, the tools' answers" },
  cut: { label: "Left out", title: "Earlier messages its context window had no room for: it did not see them" },
};

/** Who wrote a message, as the view says it. */
export type Author =
  | { kind: "person"; label: string }
  | { kind: "run"; label: string }
  | { kind: "agent"; label: string; agent: string }
  | { kind: "tool"; label: string };

/** What tells the person's words from the run's own: what they asked, and their answers. */
export type Written = { input: string; answers: readonly string[]; names: Namer; tools: ReadonlyMap<string, string> };

/** Who wrote `message`: the person (the run's request, an answer after a pause), an
 * agent (by name), a tool (its answer, named by the call it answers), or the run
 * itself (a reminder of the signals, a group's combined answers). */
export function authorOf(message: Message, written: Written): Author {
  if (message.role === "agent" && message.agent) return { kind: "agent", label: written.names(message.agent), agent: message.agent };
  if (message.role === "tool") {
    const tool = message.tool_call_id ? written.tools.get(message.tool_call_id) : undefined;
    return { kind: "tool", label: tool ? `${tool} answered` : "A tool answered" };
  }
  if (message.role === "user") {
    if (message.content === written.input) return { kind: "person", label: "You asked" };
    if (written.answers.includes(message.content)) return { kind: "person", label: "You answered" };
    return { kind: "run", label: "Added by the run" };
  }
  return { kind: "run", label: "Added by the run" };
}

/** The tools asked for in `messages`, by call id (a tool's answer names its call). */
export function toolNames(...lists: readonly (readonly Message[])[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const list of lists) for (const message of list) for (const call of message.tool_calls ?? []) names.set(call.id, call.name);
  return names;
}

/** "Asked to use files.read_text_file and files.list_directory". */
export function askedTools(message: Message): string | null {
  const tools = (message.tool_calls ?? []).map((c) => c.name);
  if (tools.length === 0) return null;
  const list = tools.length === 1 ? tools[0] : `${tools.slice(0, -1).join(", ")} and ${tools.at(-1)}`;
  return `Asked to use ${list}`;
}

/** How the paragraph the engine adds about an agent's signals begins
 * (`signal_instructions` in the engine's run/prompt.rs). */
export const SIGNAL_PARAGRAPH = "When you have done your part, end your reply with one of these signals";

/** A system prompt split into the agent's own instructions and the paragraph about
 * its signals the run added (null: none found). */
export function splitPrompt(prompt: string): { own: string; signals: string | null } {
  const at = prompt.lastIndexOf(SIGNAL_PARAGRAPH);
  if (at < 0) return { own: prompt, signals: null };
  return { own: prompt.slice(0, at).trimEnd(), signals: prompt.slice(at) };
}

/** What a turn cost: "1,240 tokens in · 86 out · $0.0012 · 2.1 s"; a turn whose
 * model reported no tokens (Simulate) says so; null while it is at work. */
export function turnCostWords(turn: Turn): string | null {
  const time = turn.latencyMs !== null ? seconds(turn.latencyMs) : null;
  if (turn.usage) {
    const { input_tokens, output_tokens, cost_usd } = turn.usage;
    const cost = typeof cost_usd === "number" ? ` · ${dollars(cost_usd)}` : "";
    return `${tokenCount(input_tokens)} tokens in · ${tokenCount(output_tokens)} out${cost}${time ? ` · ${time}` : ""}`;
  }
  if (turn.state === "working") return null;
  return `No tokens reported (a simulated reply, or its model did not count them)${time ? ` · ${time}` : ""}`;
}
