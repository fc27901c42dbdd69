// The near-miss fixes as pure edits of the crew: the spelling accepted as an alias
// (on the `signals:` entry, on the agent's rules in a crew without `signals:`, an
// entry of its own for a built-in signal), never twice; the reminder appended once.
import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { NearMiss } from "../bindings/NearMiss";
import { examCrew, frozen, newsroomCrew, quizCrew } from "./fixtures";
import {
  acceptSpelling,
  canAccept,
  isAccepted,
  isBracketName,
  isReminded,
  normalizedName,
  reminderSentence,
  remindOfSignals,
  signalsToRemind,
} from "./nearMissFixes";
import type { EditResult } from "./result";

function specOf(result: EditResult): CrewSpec {
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.spec;
}

const misspelt = (found: string, signal: string): NearMiss => ({ kind: "misspelt", found, signal, distance: 1 });

describe("acceptSpelling", () => {
  it("adds the spelling to the aliases of the crew's signals: entry, and nowhere else", () => {
    const before = frozen(examCrew());
    const after = specOf(acceptSpelling(before, "teacher", misspelt("[QUESTON]", "[QUESTION]")));
    expect(after.signals?.[0]).toEqual({ ...examCrew().signals?.[0], aliases: ["[QUESTON]"] });
    // (aliases: written last, where the engine's file has it.)
    expect(Object.keys(after.signals?.[0] ?? {}).at(-1)).toBe("aliases");
    expect(after.routing).toEqual(examCrew().routing);
    expect(after.signals?.[1]).toEqual(examCrew().signals?.[1]);
  });

  it("keeps the aliases there are", () => {
    const crew = examCrew();
    crew.signals = [{ ...crew.signals![0], aliases: ["[QESTION]"] }, crew.signals![1]];
    const after = specOf(acceptSpelling(crew, "teacher", misspelt("[QUESTON]", "[QUESTION]")));
    expect(after.signals?.[0].aliases).toEqual(["[QESTION]", "[QUESTON]"]);
  });

  it("in a crew without signals:, adds it to the agent's rules for that signal and writes no signals: section", () => {
    const before = frozen(quizCrew());
    const after = specOf(acceptSpelling(before, "quizmaster", misspelt("[QUESTON]", "[QUESTION]")));
    expect(after.signals).toBeUndefined();
    expect(after.routing?.signals?.quizmaster).toEqual([
      { signal: "[QUESTION]", target: "contestant", description: "Put the next question to the contestant", aliases: ["[QUESTON]"] },
      { signal: "[END_QUIZ]", target: "", description: "The quiz is over" },
    ]);
    expect(after.routing?.signals?.contestant).toBe(before.routing?.signals?.contestant);
  });

  it("does not add a spelling twice, on the entry or on a rule, nor one equal to it after normalization", () => {
    const exam = specOf(acceptSpelling(examCrew(), "teacher", misspelt("[QUESTON]", "[QUESTION]")));
    expect(acceptSpelling(exam, "teacher", misspelt("[QUESTON]", "[QUESTION]"))).toEqual({ ok: true, spec: exam });
    expect(acceptSpelling(exam, "teacher", misspelt("[queston]", "[QUESTION]"))).toEqual({ ok: true, spec: exam });
    const quiz = specOf(acceptSpelling(quizCrew(), "quizmaster", misspelt("[QUESTON]", "[QUESTION]")));
    expect(acceptSpelling(quiz, "quizmaster", misspelt("[QUESTON]", "[QUESTION]"))).toEqual({ ok: true, spec: quiz });
    expect(isAccepted(quiz, misspelt("[Queston]", "[QUESTION]"))).toBe(true);
    expect(isAccepted(quizCrew(), misspelt("[QUESTON]", "[QUESTION]"))).toBe(false);
  });

  it("gives a built-in signal of a crew with signals: an entry of its own, keeping its meaning (the engine reads rules' aliases only for entries)", () => {
    const after = specOf(acceptSpelling(newsroomCrew(), "editor", misspelt("[DOEN]", "[DONE]")));
    expect(after.signals?.at(-1)).toEqual({ name: "[DONE]", behavior: "terminate", description: "The task is complete", priority: 100, aliases: ["[DOEN]"] });
    expect(after.routing).toEqual(newsroomCrew().routing);
  });

  it("refuses a spelling that is no bracket name, one another signal has, and a rule the agent does not have", () => {
    expect(acceptSpelling(examCrew(), "teacher", { kind: "no_brackets", found: "QUESTION", signal: "[QUESTION]", distance: 0 }).ok).toBe(false);
    expect(acceptSpelling(examCrew(), "teacher", misspelt("QUESTON", "[QUESTION]")).ok).toBe(false);
    const taken = acceptSpelling(examCrew(), "teacher", misspelt("[end exam]", "[QUESTION]"));
    expect(taken).toEqual({ ok: false, error: "[end exam] already means [END_EXAM]" });
    expect(acceptSpelling(quizCrew(), "contestant", misspelt("[QUESTON]", "[QUESTION]")).ok).toBe(false);
  });
});

describe("canAccept and names", () => {
  it("offers only misspelt bracket names", () => {
    expect(canAccept(misspelt("[QUESTON]", "[QUESTION]"))).toBe(true);
    expect(canAccept(misspelt("[QUEST!ON]", "[QUESTION]"))).toBe(false);
    expect(canAccept({ kind: "no_brackets", found: "QUESTION", signal: "[QUESTION]", distance: 0 })).toBe(false);
    expect(canAccept({ kind: "not_this_agents", found: "[HINT]", signal: "[HINT]", distance: 0 })).toBe(false);
  });

  it("reads names as the engine does", () => {
    expect(isBracketName("[kết thúc]")).toBe(true);
    expect(isBracketName("[READY_FOR-REVIEW 2]")).toBe(true);
    expect(isBracketName("[]")).toBe(false);
    expect(isBracketName("[END")).toBe(false);
    expect(normalizedName("[ _End--Exam ]")).toBe("end exam");
  });
});

describe("remindOfSignals", () => {
  it("appends one plain sentence naming the agent's own signals to its instructions", () => {
    const before = frozen(examCrew());
    const after = specOf(remindOfSignals(before, "teacher"));
    expect(after.agents[0].system_prompt).toBe(
      "You are a patient maths teacher.\n\nEnd every reply with exactly one of these signals, written exactly as shown, in square brackets: [QUESTION], [END_EXAM].\n",
    );
    expect(after.agents.slice(1)).toEqual(before.agents.slice(1));
    expect(isReminded(after, "teacher")).toBe(true);
    expect(isReminded(before, "teacher")).toBe(false);
  });

  it("is written once: asked again, the crew stays as it is", () => {
    const once = specOf(remindOfSignals(examCrew(), "teacher"));
    expect(remindOfSignals(once, "teacher")).toEqual({ ok: true, spec: once });
  });

  it("replaces a reminder written for other signals, and starts instructions that were empty", () => {
    const crew = quizCrew();
    const reminded = specOf(remindOfSignals(crew, "contestant"));
    expect(reminded.agents[1].system_prompt).toBe("End every reply with this signal, written exactly as shown, in square brackets: [ANSWER].\n");
    const more: CrewSpec = {
      ...reminded,
      routing: { ...reminded.routing, signals: { ...reminded.routing?.signals, contestant: [{ signal: "[ANSWER]", target: "after_answer" }, { signal: "[PASS]", target: "quizmaster" }] } },
    };
    const again = specOf(remindOfSignals(more, "contestant"));
    expect(again.agents[1].system_prompt).toBe(`${reminderSentence(["[ANSWER]", "[PASS]"])}\n`);
  });

  it("names each bracket signal once, and refuses an agent with none or not in the file", () => {
    const crew = newsroomCrew();
    expect(signalsToRemind(crew, "editor")).toEqual(["[ASSIGN]", "[DONE]"]);
    expect(remindOfSignals(crew, "writer_b").ok).toBe(true);
    expect(remindOfSignals(quizCrew(), "scorekeeper")).toEqual({ ok: false, error: "Scorekeeper has no signal in square brackets to be reminded of" });
    expect(remindOfSignals(quizCrew(), "helper").ok).toBe(false);
  });
});
