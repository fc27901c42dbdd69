// What a model's check found, in words a person reads: the whole of it for Settings
// and the guided start ("answers · 8,192-token window (reported by llama.cpp) ·
// streams its replies · cannot call tools …"), a short summary for the agent form's
// model picker ("8,192-token window · no tools"), and a provider's refusal as
// something to do rather than an HTTP status. Pure.
//
//   checkWords(check).join(" · ")   // Settings
//   checkSummary(model.check)       // the picker's option
import type { ModelCheck } from "../bindings/ModelCheck";

const count = new Intl.NumberFormat("en-US");

/** "8,192-token window". */
export function windowWords(tokens: number): string {
  return `${count.format(tokens)}-token window`;
}

/** A refused key, said as what to do. */
export const KEY_REFUSED = "The key was refused — check it and try again.";

/** A provider's failure as a person should read it: a refused key (401, 403) says
 * to check the key; anything else is already in words (the backend writes it so). */
export function problemWords(problem: string): string {
  if (/key was refused|(^|[^\d.:/])(401|403)($|[^\d.:])/i.test(problem)) return KEY_REFUSED;
  return problem;
}

/** Milliseconds as seconds with one decimal: "0.4 s". */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Everything a check found, one phrase each. A model that did not answer is only
 * that (nothing else was asked of it). */
export function checkWords(check: ModelCheck): string[] {
  if (!check.answers) return [`does not answer: ${problemWords(check.problem ?? "no reply came")}`];
  const words = ["answers"];
  if (check.context_window) {
    words.push(check.context_source ? `${windowWords(check.context_window)} (${check.context_source})` : windowWords(check.context_window));
  } else {
    words.push("context window not known");
  }
  if (check.streaming !== undefined) words.push(check.streaming ? "streams its replies" : "replies all at once");
  if (check.tools !== undefined) words.push(toolWords(check));
  if (check.structured !== undefined) words.push(check.structured ? "gives structured answers" : "no structured answers");
  if (check.first_token_ms !== undefined) words.push(`first words after ${seconds(check.first_token_ms)}`);
  if (check.tokens_per_second !== undefined && check.tokens_per_second > 0) {
    words.push(`${count.format(Math.round(check.tokens_per_second))} tokens a second`);
  }
  if (check.problem) words.push(problemWords(check.problem));
  return words;
}

/** A short summary for a model list: the window and what it cannot do (what it
 * can do goes without saying). `window` is the one set in Settings, if any. */
export function checkSummary(check: ModelCheck | undefined, window?: number): string {
  const tokens = window ?? check?.context_window;
  if (!check) return tokens ? `${windowWords(tokens)} · not checked yet` : "not checked yet";
  if (!check.answers) return "did not answer when checked";
  const words = [tokens ? windowWords(tokens) : "window not known"];
  if (check.tools === false) words.push(check.tool_json ? "tools as JSON" : "no tools");
  if (check.structured === false) words.push("no structured answers");
  return words.join(" · ");
}

/** How tools reach the model: its own tool calling, or JSON it is held to (a model
 * with no tool calling of its own, `tool_json`). */
function toolWords(check: ModelCheck): string {
  if (check.tool_json) return check.tools ? "calls tools through structured output" : "did not call a tool when checked (its tools are offered as JSON)";
  return check.tools ? "calls tools" : "cannot call tools";
}
