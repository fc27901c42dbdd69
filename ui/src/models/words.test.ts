// What a check found, in words: the whole of it, the picker's summary, and a
// provider's refusal said as what to do.
import { describe, expect, it } from "vitest";
import type { ModelCheck } from "../bindings/ModelCheck";
import { checkSummary, checkWords, KEY_REFUSED, problemWords, windowWords } from "./words";

const full: ModelCheck = {
  answers: true,
  context_window: 8192,
  context_source: "reported by llama.cpp",
  streaming: true,
  tools: false,
  structured: true,
  first_token_ms: 380,
  tokens_per_second: 41.6,
  checked_at: 1,
};

describe("checkWords", () => {
  it("says everything a check found, one phrase each", () => {
    expect(checkWords(full)).toEqual([
      "answers",
      "8,192-token window (reported by llama.cpp)",
      "streams its replies",
      "cannot call tools",
      "gives structured answers",
      "first words after 0.4 s",
      "42 tokens a second",
    ]);
  });

  it("leaves out what was not asked, and says when the window is not known", () => {
    expect(checkWords({ answers: true, checked_at: 1 })).toEqual(["answers", "context window not known"]);
    expect(checkWords({ answers: true, streaming: false, tools: true, structured: false, checked_at: 1 })).toEqual([
      "answers",
      "context window not known",
      "replies all at once",
      "calls tools",
      "no structured answers",
    ]);
  });

  it("says when tools reach the model as JSON (no tool calling of its own)", () => {
    expect(checkWords({ answers: true, tools: true, tool_json: true, checked_at: 1 })).toContain("calls tools through structured output");
    expect(checkWords({ answers: true, tools: false, tool_json: true, checked_at: 1 })).toContain(
      "did not call a tool when checked (its tools are offered as JSON)",
    );
    expect(checkSummary({ answers: true, tools: false, tool_json: true, checked_at: 1 }, 4096)).toBe("4,096-token window · tools as JSON");
  });

  it("says only why for a model that did not answer, a refused key as what to do", () => {
    expect(checkWords({ answers: false, problem: "the server at http://127.0.0.1:9/v1 cannot be reached", context_window: 8192, checked_at: 1 })).toEqual([
      "does not answer: the server at http://127.0.0.1:9/v1 cannot be reached",
    ]);
    expect(checkWords({ answers: false, problem: "openai: the API key was refused (401): Incorrect API key provided", checked_at: 1 })).toEqual([
      `does not answer: ${KEY_REFUSED}`,
    ]);
  });
});

describe("problemWords", () => {
  it("turns a refused key (401, 403) into what to do, and keeps other words as they are", () => {
    expect(problemWords("openai: the API key was refused (401): bad key. Check your key")).toBe(KEY_REFUSED);
    expect(problemWords("anthropic: 403 Forbidden")).toBe(KEY_REFUSED);
    expect(problemWords("the server at 127.0.0.1:4011 cannot be reached")).toBe("the server at 127.0.0.1:4011 cannot be reached");
    expect(problemWords("http://10.0.0.401/v1: no answer")).toBe("http://10.0.0.401/v1: no answer");
  });
});

describe("checkSummary", () => {
  it("gives the window and what the model cannot do", () => {
    expect(checkSummary(full)).toBe("8,192-token window · no tools");
    expect(checkSummary({ ...full, structured: false })).toBe("8,192-token window · no tools · no structured answers");
    expect(checkSummary({ ...full, tools: true })).toBe("8,192-token window");
  });

  it("prefers the window set in Settings, and says when a model was never checked or did not answer", () => {
    expect(checkSummary(full, 4096)).toBe("4,096-token window · no tools");
    expect(checkSummary(undefined)).toBe("not checked yet");
    expect(checkSummary(undefined, 32768)).toBe("32,768-token window · not checked yet");
    expect(checkSummary({ answers: false, checked_at: 1 })).toBe("did not answer when checked");
    expect(checkSummary({ answers: true, checked_at: 1 })).toBe("window not known");
  });

  it("writes token counts with thousands separators", () => {
    expect(windowWords(128000)).toBe("128,000-token window");
  });
});
