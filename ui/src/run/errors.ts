// A failed run in words a person can act on (UX.md "Errors say what happened and
// what to try"): the engine's error — "agent 'host': openai at http://127.0.0.1:9/v1:
// nothing answers at 127.0.0.1:9 — is the model server running? (Connection refused
// (os error 111)) (tried 3 times)" — read as who failed, what happened in one
// sentence, what to try, and the whole text kept as the details, one click away.
// Pure: names come from the caller.
//
//   const failure = explainFailure(view.result.error);
//   failureLine(failure, names)   // "Failed at Host: nothing answers at … Start the model server, …"
//   failure.details               // the engine's exact words
import type { Namer } from "./words";

export type RunFailure = {
  /** The agent whose turn failed, when the error names one. */
  agent: string | null;
  /** What happened, one sentence as the engine starts it: "nothing answers at
   * 127.0.0.1:9 — is the model server running?". */
  headline: string;
  /** What to try: "Start it, or choose another model, then run again." */
  advice: string;
  /** The engine's whole text, as it said it. */
  details: string;
};

/** What to try, by what the error says (the first that fits). */
const ADVICE: [RegExp, string][] = [
  [/a defect, please report it/i, "Please report it; running again may go through."],
  [/nothing answers at .* is the gatekeeper running/i, "Start the gatekeeper service (crewgraph serve), or Simulate with a script, then run again."],
  [/nothing answers at|cannot connect to|connecting to .* timed out|was cut before the server answered/i, "Start the model server, or choose another model in the Model list, then run again."],
  [/did not answer in time/i, "The model is slow or busy: run again, or choose a faster model."],
  [/cannot find the server|the address .* cannot be used|is the base url right/i, "Check the model's address in Settings, then run again."],
  [/certificate/i, "Check the model's address in Settings: its server's certificate was not accepted."],
  [/\b40[13]\b|key was refused|unauthori[sz]ed|invalid api key|no api key|api key/i, "Check the model's API key in Settings, then run again."],
  [/\b429\b|rate limit|too many requests/i, "The provider asks you to wait: run again in a minute."],
  [/\b5\d\d\b/, "The provider had a problem on its side: run again in a moment."],
  [/context window|context length|too long/i, "Shorten the instructions, or choose a model with a bigger context window."],
  [/did not finish within/i, "Give the group more time (its time limit, in the group's panel), or use a faster model."],
  [/no (more )?repl(y|ies)|script has no/i, "Add replies for this agent to the script, or choose Simulate (type each reply)."],
  [/no model is configured|no model/i, "Choose a model in Settings, or Simulate with a script."],
];

const FALLBACK_ADVICE = "Run again, or choose another model in the Model list.";

/** The engine's error in a person's words. */
export function explainFailure(error: string): RunFailure {
  const details = error.trim();
  let rest = details;
  let agent: string | null = null;
  const who = /^agent '([^']+)':\s*/.exec(rest);
  if (who) {
    agent = who[1];
    rest = rest.slice(who[0].length);
  }
  // "openai at http://…/v1: " — which provider and where: a detail.
  rest = rest.replace(/^[a-z][\w-]* at \S+?:\s+/i, "");
  rest = withoutTrailingParentheses(rest).trim();
  const headline = ended(rest || "something went wrong");
  const advice = ADVICE.find(([pattern]) => pattern.test(details))?.[1] ?? FALLBACK_ADVICE;
  return { agent, headline, advice, details };
}

/** The failure's first line: "Failed at Host: nothing answers at 127.0.0.1:9 — is
 * the model server running? Start the model server, or …". */
export function failureLine(failure: RunFailure, name: Namer = (id) => id): string {
  const where = failure.agent ? `Failed at ${name(failure.agent)}` : "Failed";
  return `${where}: ${failure.headline} ${failure.advice}`;
}

/** "… running? (Connection refused (os error 111)) (tried 3 times)" without the
 * parenthesised details at its end. */
function withoutTrailingParentheses(text: string): string {
  let rest = text.trimEnd();
  for (;;) {
    if (!rest.endsWith(")")) return rest;
    let depth = 0;
    let at = -1;
    for (let i = rest.length - 1; i >= 0; i--) {
      if (rest[i] === ")") depth++;
      else if (rest[i] === "(") depth--;
      if (depth === 0) {
        at = i;
        break;
      }
    }
    // Unbalanced, or the whole text is in parentheses: keep it.
    if (at <= 0) return rest;
    rest = rest.slice(0, at).trimEnd();
  }
}

/** A sentence ends with its mark. */
const ended = (text: string) => (/[.?!]$/.test(text) ? text : `${text}.`);
