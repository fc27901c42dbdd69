import { describe, expect, it, vi } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ProblemView } from "../bindings/ProblemView";
import { connect } from "./edges";
import { crewDocument, examCrew, frozen, newsroomCrew, quizCrew } from "./fixtures";
import type { EditResult } from "./result";
import {
  addSignal,
  deleteSignal,
  deprecateSignal,
  listSignals,
  renameSignal,
  signalUses,
  updateSignal,
} from "./signals";

function specOf(result: EditResult): CrewSpec {
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.spec;
}

/** The quiz with a strict registry: what every registry edit of the quiz starts by writing. */
function promotedQuiz(extra: CrewSpec["signals"] = []): CrewSpec {
  const { routing, settings, ...head } = quizCrew();
  return {
    ...head,
    signals: [
      { name: "[QUESTION]", behavior: "route", description: "Put the next question to the contestant" },
      { name: "[END_QUIZ]", behavior: "terminate", description: "The quiz is over" },
      { name: "[ANSWER]", behavior: "parallel", description: "Let the scorekeeper and the commentator react" },
      ...(extra ?? []),
    ],
    routing,
    settings,
  };
}

describe("signalUses", () => {
  it("lists each rule naming the signal with its place and target", () => {
    expect(signalUses(examCrew(), "[QUESTION]")).toEqual([{ agent: "teacher", index: 0, target: "exam_round" }]);
    expect(signalUses(newsroomCrew(), "[NEXT]")).toEqual([
      { agent: "writer_a", index: 0, target: "editor" },
      { agent: "writer_b", index: 0, target: "editor" },
    ]);
    expect(signalUses(examCrew(), "[NEXT]")).toEqual([]);
  });
});

describe("listSignals", () => {
  it("lists a strict crew's entries, then the built-ins they do not replace", () => {
    const rows = listSignals(examCrew());
    expect(rows.map((r) => [r.name, r.origin, r.behavior, r.uses.length])).toEqual([
      ["[QUESTION]", "declared", "parallel", 1],
      ["[END_EXAM]", "declared", "terminate", 1],
      ["[END]", "builtin", "terminate", 0],
      ["[DONE]", "builtin", "terminate", 0],
      ["[STOP]", "builtin", "terminate", 0],
      ["[NEXT]", "builtin", "route", 0],
      ["[ANSWER]", "builtin", "route", 0],
      ["[OK]", "builtin", "route", 0],
      ["[ERROR]", "builtin", "route", 0],
      ["[RETRY]", "builtin", "route", 0],
      ["[WAIT]", "builtin", "pause", 0],
    ]);
    expect(rows[0]).toMatchObject({
      description: "asks a question",
      allowed_agents: ["teacher"],
      valid_targets: ["exam_round"],
      overrides_builtin: true,
      deprecated: null,
      priority: 50,
    });
    expect(rows.find((r) => r.name === "[STOP]")).toMatchObject({ priority: 110, description: "Stop at once", overrides_builtin: false });
  });

  it("lists an implicit crew's signals with the behaviour their rules imply", () => {
    const rows = listSignals(quizCrew());
    expect(rows.slice(0, 3).map((r) => [r.name, r.origin, r.behavior, r.description])).toEqual([
      ["[QUESTION]", "implicit", "route", "Put the next question to the contestant"],
      ["[END_QUIZ]", "implicit", "terminate", "The quiz is over"],
      ["[ANSWER]", "implicit", "parallel", "Let the scorekeeper and the commentator react"],
    ]);
    expect(rows.filter((r) => r.name === "[QUESTION]")).toHaveLength(1);
    expect(rows.length).toBe(3 + 9);
  });

  it("shows a strict crew's unregistered signals, and the engine's problems per signal", () => {
    const spec = examCrew();
    spec.routing!.signals!.student = [{ signal: "[MYSTERY]", target: "teacher" }];
    const problem: ProblemView = {
      diagnostic: {
        severity: "error",
        problem: { code: "unknown_signal", signal: "[MYSTERY]" },
        message: "signal '[MYSTERY]' is not registered (unknown signal)",
        plain: "[MYSTERY] is not in the signal list",
        location: null,
        subject: { kind: "signal", signal: "[MYSTERY]" },
      },
      targets: ["rule:student:0:agent:teacher"],
    };
    const doc = crewDocument("exam", [problem]);
    const row = listSignals(spec, doc).find((r) => r.name === "[MYSTERY]");
    expect(row).toMatchObject({ origin: "unregistered", behavior: "route", uses: [{ agent: "student", index: 0, target: "teacher" }] });
    expect(row?.problems).toEqual([problem]);
    expect(listSignals(spec, doc).find((r) => r.name === "[QUESTION]")?.problems).toEqual([]);
  });

  it("reads an empty deprecation note as deprecated, as the engine does", () => {
    const spec = examCrew();
    spec.signals![1] = { ...spec.signals![1], deprecated: "" };
    expect(listSignals(spec)[1].deprecated).toBe("no longer in use");
  });
});

describe("addSignal", () => {
  it("appends an entry in the registry's key order, without empty fields", () => {
    const spec = frozen(examCrew());
    const next = specOf(
      addSignal(spec, { description: "a hint is needed", allowed_agents: [], behavior: "route", name: " [HINT] " }),
    );
    expect(next.signals!.at(-1)).toEqual({ name: "[HINT]", behavior: "route", description: "a hint is needed" });
    expect(Object.keys(next.signals!.at(-1)!)).toEqual(["name", "behavior", "description"]);
    expect(next.routing).toBe(spec.routing);
  });

  it("registers the implicit signals first in a crew without a signals section", () => {
    const next = specOf(addSignal(frozen(quizCrew()), { name: "[HINT]" }));
    expect(next).toEqual(promotedQuiz([{ name: "[HINT]", behavior: "route" }]));
  });

  it("refuses an empty, known or malformed name", () => {
    const check = vi.fn((name: string) => (name.startsWith("[") ? null : `invalid signal format '${name}'`));
    const spec = frozen(examCrew());
    expect(addSignal(spec, { name: "" })).toEqual({ ok: false, error: "Every signal needs a name" });
    expect(addSignal(spec, { name: "[QUESTION]" })).toEqual({ ok: false, error: "There is already a signal called '[QUESTION]'" });
    expect(addSignal(spec, { name: "[NEXT]" }).ok).toBe(false);
    expect(addSignal(quizCrew(), { name: "[END_QUIZ]" }).ok).toBe(false);
    expect(addSignal(spec, { name: "HINT" }, { checkSignal: check })).toEqual({ ok: false, error: "invalid signal format 'HINT'" });
  });
});

describe("updateSignal", () => {
  it("patches a declared entry in place and drops emptied text", () => {
    const next = specOf(updateSignal(frozen(examCrew()), "[QUESTION]", { description: "", priority: 70, allowed_agents: [] }));
    expect(next.signals![0]).toEqual({ name: "[QUESTION]", behavior: "parallel", valid_targets: ["exam_round"], priority: 70 });
  });

  it("gives a built-in signal an entry that keeps its meaning", () => {
    const next = specOf(updateSignal(frozen(examCrew()), "[NEXT]", { description: "next, please" }));
    expect(next.signals!.at(-1)).toEqual({ name: "[NEXT]", behavior: "route", description: "next, please" });
    const wait = specOf(updateSignal(frozen(examCrew()), "[WAIT]", { allowed_agents: ["student"] }));
    expect(wait.signals!.at(-1)).toEqual({
      name: "[WAIT]",
      behavior: "pause",
      description: "Wait for the person's input",
      allowed_agents: ["student"],
      priority: 80,
    });
  });

  it("makes an implicit crew strict with every signal of its rules before editing one", () => {
    const next = specOf(updateSignal(frozen(quizCrew()), "[END_QUIZ]", { description: "Game over" }));
    const expected = promotedQuiz();
    expected.signals![1] = { name: "[END_QUIZ]", behavior: "terminate", description: "Game over" };
    expect(next).toEqual(expected);
  });

  it("registers a strict crew's unregistered signal with the behaviour its rule implies", () => {
    const spec = examCrew();
    spec.routing!.signals!.student = [{ signal: "[MYSTERY]", target: "" }];
    const next = specOf(updateSignal(frozen(spec), "[MYSTERY]", { description: "gives up" }));
    expect(next.signals!.at(-1)).toEqual({ name: "[MYSTERY]", behavior: "terminate", description: "gives up" });
  });

  it("refuses a signal the crew does not know", () => {
    expect(updateSignal(examCrew(), "[NOPE]", { description: "x" })).toEqual({ ok: false, error: "There is no signal called '[NOPE]'" });
  });
});

describe("renameSignal", () => {
  it("renames a declared entry in place and the rules follow", () => {
    const next = specOf(renameSignal(frozen(examCrew()), "[QUESTION]", "[ASK]"));
    const expected = examCrew();
    expected.signals![0].name = "[ASK]";
    expected.routing!.signals!.teacher[0].signal = "[ASK]";
    expect(next).toEqual(expected);
  });

  it("renames only the rules in an implicit crew", () => {
    const next = specOf(renameSignal(frozen(quizCrew()), "[ANSWER]", "[REPLY]"));
    const expected = quizCrew();
    expected.routing!.signals!.contestant[0].signal = "[REPLY]";
    expect(next).toEqual(expected);
  });

  it("registers a used built-in's meaning under the new name in a strict crew", () => {
    const spec = specOf(connect(examCrew(), { from: "student", to: { kind: "agent", agent: "teacher", group: null }, signal: "[NEXT]" }));
    const next = specOf(renameSignal(frozen(spec), "[NEXT]", "[GO]"));
    expect(next.routing!.signals!.student).toEqual([{ signal: "[GO]", target: "teacher" }]);
    expect(next.signals!.at(-1)).toEqual({ name: "[GO]", behavior: "route", description: "Hand over to the next agent" });
  });

  it("refuses a taken or empty name, and an unused built-in", () => {
    const spec = frozen(examCrew());
    expect(renameSignal(spec, "[QUESTION]", "[END_EXAM]")).toEqual({ ok: false, error: "There is already a signal called '[END_EXAM]'" });
    expect(renameSignal(spec, "[QUESTION]", "[END]").ok).toBe(false);
    expect(renameSignal(spec, "[QUESTION]", " ")).toEqual({ ok: false, error: "Every signal needs a name" });
    expect(renameSignal(spec, "[NEXT]", "[GO]").ok).toBe(false);
  });
});

describe("deprecateSignal", () => {
  it("writes the note last in the entry, and an empty note removes it", () => {
    const marked = specOf(deprecateSignal(frozen(examCrew()), "[QUESTION]", " Use [ASK] instead "));
    expect(Object.keys(marked.signals![0]).at(-1)).toBe("deprecated");
    expect(marked.signals![0].deprecated).toBe("Use [ASK] instead");
    // Why: the engine reads `deprecated: ""` as deprecated, so clearing must remove the key.
    expect(specOf(deprecateSignal(marked, "[QUESTION]", "")).signals).toEqual(examCrew().signals);
  });

  it("registers the implicit signals first", () => {
    const next = specOf(deprecateSignal(frozen(quizCrew()), "[QUESTION]", "Use [ASK]"));
    const expected = promotedQuiz();
    expected.signals![0] = { ...expected.signals![0], deprecated: "Use [ASK]" };
    expect(next).toEqual(expected);
  });
});

describe("deleteSignal", () => {
  it("is refused while rules use the signal, listing them", () => {
    expect(deleteSignal(frozen(newsroomCrew()), "[ASSIGN]")).toEqual({
      ok: false,
      error: "'[ASSIGN]' is used by 1 connection; remove or change them first",
      uses: [{ agent: "editor", index: 0, target: ["writer_a", "writer_b"] }],
    });
  });

  it("deletes an unused entry; the registry stays strict when it empties", () => {
    const spec = specOf(addSignal(examCrew(), { name: "[HINT]" }));
    expect(specOf(deleteSignal(frozen(spec), "[HINT]"))).toEqual(examCrew());
    const lone: CrewSpec = { entry_point: "a", agents: [{ id: "a" }], signals: [{ name: "[X]" }] };
    expect(specOf(deleteSignal(frozen(lone), "[X]"))).toEqual({ entry_point: "a", agents: [{ id: "a" }], signals: [] });
  });

  it("refuses a built-in or unknown signal", () => {
    expect(deleteSignal(examCrew(), "[END]")).toEqual({ ok: false, error: "'[END]' is built in and cannot be deleted" });
    expect(deleteSignal(examCrew(), "[NOPE]")).toEqual({ ok: false, error: "There is no signal called '[NOPE]'" });
  });
});
