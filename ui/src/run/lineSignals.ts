// Line signals (a signal matched by a pattern, such as `^READY_FOR_REVIEW:\s*(\S+)`)
// as the line an agent writes: the words before the payload, whether there is a
// payload, the words after it — so a Simulate chip can ask for the payload and
// write `READY_FOR_REVIEW: T-42`. Pure.
//
//   lineTemplate("^READY_FOR_REVIEW:\\s*(\\S+)")   // { before: "READY_FOR_REVIEW: ", payload: true, after: "" }
//   writeLine(template, "T-42")                   // "READY_FOR_REVIEW: T-42"

export type LineTemplate = {
  /** The words before the payload (or the whole line, without one). */
  before: string;
  /** The line carries a payload (the pattern's first group). */
  payload: boolean;
  /** The words after the payload. */
  after: string;
};

/** Escaped characters that stand for themselves. */
const LITERAL_ESCAPES = new Set([..."\\^$.|?*+()[]{}/:-#!=<>'\"`~@%&,;_ "]);

/** The line a pattern matches, read as words and one payload; null when the
 * pattern is more than that (alternatives, classes outside the payload, …): then
 * the person writes the whole line. */
export function lineTemplate(pattern: string): LineTemplate | null {
  let rest = pattern;
  if (rest.startsWith("^")) rest = rest.slice(1);
  if (rest.endsWith("$") && !rest.endsWith("\\$")) rest = rest.slice(0, -1);
  let before = "";
  let after = "";
  let payload = false;
  let i = 0;
  const add = (text: string) => {
    if (payload) after += text;
    else before += text;
  };
  while (i < rest.length) {
    const c = rest[i];
    if (c === "\\") {
      const next = rest[i + 1];
      if (next === undefined) return null;
      if (next === "s") {
        // \s, \s*, \s+: a space, as a person writes it.
        i += 2;
        if (rest[i] === "*" || rest[i] === "+" || rest[i] === "?") i += 1;
        add(" ");
        continue;
      }
      if (!LITERAL_ESCAPES.has(next)) return null;
      add(next);
      i += 2;
      continue;
    }
    if (c === " ") {
      i += 1;
      if (rest[i] === "*" || rest[i] === "+" || rest[i] === "?") i += 1;
      add(" ");
      continue;
    }
    if (c === "(") {
      if (payload) return null;
      const close = groupEnd(rest, i);
      if (close < 0 || rest[i + 1] === "?") return null;
      payload = true;
      i = close + 1;
      // (A group may be optional or repeated: the payload is still one.)
      if (rest[i] === "?" || rest[i] === "*" || rest[i] === "+") i += 1;
      continue;
    }
    if (".*+?[]{}|)".includes(c)) return null;
    add(c);
    i += 1;
  }
  // Spaces the pattern allows around the payload are written once.
  return { before: payload ? before.replace(/ +$/, " ") : before.trimEnd(), payload, after: after.replace(/^ +/, " ").trimEnd() };
}

/** Where the group opened at `open` closes (-1: it does not). */
function groupEnd(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i += 1;
      continue;
    }
    if (c === "(") depth += 1;
    if (c === ")") {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The line with `payload` in its place. */
export function writeLine(template: LineTemplate, payload = ""): string {
  return template.payload ? `${template.before}${payload.trim()}${template.after}` : template.before;
}

/** Whether `line` is one the pattern matches (the engine reads patterns line by
 * line); true when the pattern cannot be read here (the engine will say). */
export function lineMatches(pattern: string, line: string): boolean {
  try {
    return new RegExp(pattern, "m").test(line);
  } catch {
    return true;
  }
}

/** The reply with `line` added as a line of its own at its end. */
export function withLine(reply: string, line: string): string {
  const kept = reply.trimEnd();
  return kept ? `${kept}\n${line}` : line;
}
