// What agents saw, for the tests ("What Teacher saw"): model calls as the backend's
// `step_context` answers them — one call with nothing cut, against a known window;
// one whose context window cut three earlier messages; and a turn of two calls, the
// second after a tool's answer.
import type { Message } from "../bindings/Message";
import type { SeenCall } from "../bindings/SeenCall";
import type { StepContext } from "../bindings/StepContext";
import { SIGNAL_PARAGRAPH } from "./seenWords";

export const said = (content: string, agent?: string): Message => (agent ? { role: "agent", agent, content } : { role: "user", content });
export const toolAnswer = (content: string, id: string, agent = "reporter"): Message => ({ role: "tool", agent, content, tool_call_id: id });

/** The teacher's instructions as its model got them, with the run's paragraph. */
export const TEACHER_PROMPT = `You teach fractions.\n\n${SIGNAL_PARAGRAPH}, written exactly as shown, to say what happens next:\n- [QUESTION]: the exam round answers\nUse only these signals, and only one of them.`;

/** The teacher's first call: 1,240 of 8,192 tokens, nothing cut. */
export function seenCall(more: Partial<SeenCall> = {}): SeenCall {
  return {
    agent: "teacher",
    call: 0,
    system_prompt: TEACHER_PROMPT,
    messages: [said("Begin.")],
    cut: [],
    tokens: 1240,
    prompt_tokens: 310,
    cut_tokens: 0,
    window: 8192,
    ...more,
  };
}

/** The teacher at step 7: three earlier messages cut (about 420 tokens). */
export function cutContext(): StepContext {
  return {
    run_id: "run-1",
    step: 7,
    calls: [
      seenCall({
        messages: [said("Begin."), said("Right again. Score: 2/2", "reporter")],
        cut: [said("Question 1: what is 1/2 + 1/4? [QUESTION]", "teacher"), said("1/2 is 2/4, and 2/4 + 1/4 = 3/4.", "student"), said("0.75 is 3/4: right. Score: 1/1", "reporter")],
        cut_tokens: 420,
        tokens: 900,
        window: 2000,
      }),
    ],
  };
}

/** The reporter at step 3: a call, then another after the calculator's answer. */
export function toolContext(): StepContext {
  const asking: Message = { role: "agent", agent: "reporter", content: "Let me check.", tool_calls: [{ id: "c1", name: "calculator", arguments: { expression: "1/2 + 1/4" } }] };
  return {
    run_id: "run-1",
    step: 3,
    calls: [
      seenCall({ agent: "reporter", system_prompt: "You keep score.", messages: [said("Begin.")], tokens: 60, prompt_tokens: 20, window: null }),
      seenCall({ agent: "reporter", call: 1, system_prompt: "You keep score.", messages: [said("Begin."), asking, toolAnswer("0.75", "c1")], tokens: 90, prompt_tokens: 20, window: null }),
    ],
  };
}
