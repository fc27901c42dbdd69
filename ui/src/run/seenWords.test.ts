// "What Teacher saw" in words: the calls' names, the token bar's parts and their
// shares (against the window when known), what was left out, who wrote each message,
// the signal paragraph told apart, and what a turn cost.
import { describe, expect, it } from "vitest";
import type { Message } from "../bindings/Message";
import type { Turn } from "./reducer";
import { said, seenCall, toolAnswer as tool } from "./seenFixtures";
import {
  askedTools,
  authorOf,
  callLabel,
  cutWords,
  ordinal,
  SIGNAL_PARAGRAPH,
  splitPrompt,
  tokenBar,
  tokenHeadline,
  toolNames,
  turnCostWords,
} from "./seenWords";

describe("the calls of a turn", () => {
  it("numbers them as people do", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]);
  });

  it("says why the model was asked again: the tool results (which round), or again", () => {
    const calls = [
      seenCall(),
      seenCall({ call: 1, messages: [said("Begin."), tool("0.75", "c1")] }),
      seenCall({ call: 2, messages: [said("Begin."), tool("0.75", "c1"), tool("6", "c2")] }),
      seenCall({ call: 3, messages: [said("Begin."), said("", "teacher")] }),
    ];
    expect(calls.map((_, i) => callLabel(calls, i))).toEqual([
      "1st call",
      "2nd call · after the tool results",
      "3rd call · after the 2nd tool results",
      "4th call · asked again",
    ]);
  });
});

describe("the token bar", () => {
  it("measures the instructions and the messages against the window when it is known", () => {
    const bar = tokenBar(seenCall());
    expect(bar.scale).toBe(8192);
    expect(bar.parts.map((p) => [p.kind, p.tokens])).toEqual([
      ["instructions", 310],
      ["messages", 930],
    ]);
    expect(bar.parts[0].share).toBeCloseTo(310 / 8192);
    expect(bar.parts[1].share).toBeCloseTo(930 / 8192);
    expect(tokenHeadline(seenCall())).toBe("1,240 of 8,192 tokens");
  });

  it("adds the cut part after what was sent; without a window the bar is all of it", () => {
    const call = seenCall({ window: null, cut: [said("old", "student"), said("older", "teacher"), said("oldest", "student")], cut_tokens: 420 });
    const bar = tokenBar(call);
    expect(bar.scale).toBe(1660);
    expect(bar.parts.map((p) => p.kind)).toEqual(["instructions", "messages", "cut"]);
    expect(bar.parts.reduce((sum, p) => sum + p.share, 0)).toBeCloseTo(1);
    expect(tokenHeadline(call)).toBe("1,240 tokens");
    expect(cutWords(call)).toBe("3 earlier messages were left out (about 420 tokens)");
    expect(cutWords(seenCall({ cut: [said("old", "student")], cut_tokens: 40 }))).toBe("1 earlier message was left out (about 40 tokens)");
    expect(cutWords(seenCall())).toBeNull();
  });

  it("never draws more instructions than were sent (an estimate over a count)", () => {
    const bar = tokenBar(seenCall({ tokens: 200, prompt_tokens: 260 }));
    expect(bar.parts.map((p) => [p.kind, p.tokens])).toEqual([["instructions", 200]]);
  });
});

describe("who wrote each message", () => {
  const written = { input: "Begin.", answers: ["Fractions, please."], names: (id: string) => id[0].toUpperCase() + id.slice(1), tools: new Map([["c1", "calculator"]]) };

  it("tells the person, an agent, a tool's answer and the run apart", () => {
    expect(authorOf(said("Begin."), written)).toEqual({ kind: "person", label: "You asked" });
    expect(authorOf(said("Fractions, please."), written)).toEqual({ kind: "person", label: "You answered" });
    expect(authorOf(said("End every reply with [QUESTION]."), written)).toEqual({ kind: "run", label: "Added by the run" });
    expect(authorOf(said("3/4", "student"), written)).toEqual({ kind: "agent", label: "Student", agent: "student" });
    expect(authorOf(tool("0.75", "c1"), written)).toEqual({ kind: "tool", label: "calculator answered" });
    expect(authorOf(tool("?", "c9"), written)).toEqual({ kind: "tool", label: "A tool answered" });
  });

  it("names the tools an agent asked for, and finds them for their answers", () => {
    const asking: Message = { role: "agent", agent: "reporter", content: "", tool_calls: [{ id: "c1", name: "calculator", arguments: {} }, { id: "c2", name: "files.read", arguments: {} }] };
    expect(askedTools(asking)).toBe("Asked to use calculator and files.read");
    expect(askedTools(said("hi", "reporter"))).toBeNull();
    expect(toolNames([], [asking]).get("c2")).toBe("files.read");
  });
});

describe("the instructions", () => {
  it("tell the agent's own from the paragraph the run adds about its signals", () => {
    const signals = `${SIGNAL_PARAGRAPH}, written exactly as shown, to say what happens next:\n- [QUESTION]: asks the student\nUse only these signals, and only one of them.`;
    expect(splitPrompt(`You teach fractions.\n\n${signals}`)).toEqual({ own: "You teach fractions.", signals });
    expect(splitPrompt(signals)).toEqual({ own: "", signals });
    expect(splitPrompt("You teach.")).toEqual({ own: "You teach.", signals: null });
  });
});

describe("what a turn cost", () => {
  const turn = (more: Partial<Turn>): Turn => ({
    ...emptyTurn,
    ...more,
  });
  const emptyTurn: Turn = {
    id: 1, agent: "teacher", step: 1, group: null, startedAt: "", text: "", final: true, tools: [], signal: null, missed: [],
    state: "done", error: null, usage: null, latencyMs: 2100, asking: false,
  };

  it("says its tokens, their price when known, and its time", () => {
    expect(turnCostWords(turn({ usage: { input_tokens: 1240, output_tokens: 86, cost_usd: 0.0012 } }))).toBe("1,240 tokens in · 86 out · $0.0012 · 2.1 s");
    expect(turnCostWords(turn({ usage: { input_tokens: 5, output_tokens: 1 }, latencyMs: null }))).toBe("5 tokens in · 1 out");
    expect(turnCostWords(turn({}))).toBe("No tokens reported (a simulated reply, or its model did not count them) · 2.1 s");
    expect(turnCostWords(turn({ state: "working", latencyMs: null }))).toBeNull();
  });
});
