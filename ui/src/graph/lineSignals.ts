// What an agent writes to send a line signal, for the arrows' pills: the code-review
// crew's `review-ready` (`^READY_FOR_REVIEW:\s*(\S+)`) is written
// "READY_FOR_REVIEW: <id>", so that is what its arrow's pill shows; the signal's
// name stays in the tooltip and the inspector. The pattern is read as words and one
// payload by the run side's reader (run/lineSignals.ts, which Simulate's chips use
// too); the payload is shown as `<id>` when it is one word, `<text>` otherwise. Pure.
//
//   writtenLine("^READY_FOR_REVIEW:\\s*(\\S+)");  // → "READY_FOR_REVIEW: <id>"
//   writtenLine("^(yes|no)$");                    // → null (no one line to show)
import type { SignalDef } from "../bindings/SignalDef";
import { lineTemplate } from "../run/lineSignals";

/** A payload of one word: `(\S+)`, `(\w+)`, `([A-Z0-9-]+)`. */
const WORD = /\((?:\\S|\\w|\[[^\]]*\])[+*]\)/;

/** The line a pattern stands for, its payload (group 1) shown as `<id>` or `<text>`;
 * null when the pattern is not one plain line, or is all payload. */
export function writtenLine(pattern: string): string | null {
  const template = lineTemplate(pattern.trim());
  if (!template) return null;
  const payload = WORD.test(pattern) ? "<id>" : "<text>";
  const line = (template.payload ? `${template.before}${payload}${template.after}` : template.before).replace(/ +/g, " ").trim();
  return line === "" || line === payload ? null : line;
}

/** Each line signal's written line, by the signal's name (bracket signals are
 * written as they are named, so they are not here). */
export function writtenLines(signals: readonly Pick<SignalDef, "name" | "pattern">[]): Map<string, string> {
  const lines = new Map<string, string>();
  for (const signal of signals) {
    if (!signal.pattern) continue;
    const line = writtenLine(signal.pattern);
    if (line) lines.set(signal.name, line);
  }
  return lines;
}
