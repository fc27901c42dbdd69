import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import { examCrew, frozen, quizCrew } from "./fixtures";
import { addMember, createGroup, removeGroup, removeMember, renameGroup, updateGroup } from "./groups";
import type { EditResult } from "./result";

function specOf(result: EditResult): CrewSpec {
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.spec;
}

/** The exam before it had a group: three agents, the teacher's end rule. */
function examWithoutGroup(): CrewSpec {
  const spec = examCrew();
  delete spec.signals;
  spec.routing = { strategy: "signals", signals: { teacher: [{ signal: "[END_EXAM]", target: "" }] } };
  return spec;
}

describe("createGroup", () => {
  it("makes a group of the selection that waits for all of them up to 30 s", () => {
    const next = specOf(createGroup(frozen(examWithoutGroup()), "round", ["student", "reporter", "student"]));
    expect(next.routing).toEqual({
      strategy: "signals",
      signals: { teacher: [{ signal: "[END_EXAM]", target: "" }] },
      parallel_groups: { round: { agents: ["student", "reporter"], timeout: "30s", wait_for_all: true } },
    });
  });

  it("creates the routing section where a crew has none", () => {
    const spec: CrewSpec = { name: "Pair", entry_point: "a", agents: [{ id: "a" }, { id: "b" }], settings: { max_rounds: 3 } };
    const next = specOf(createGroup(frozen(spec), "both", ["a", "b"]));
    expect(Object.keys(next)).toEqual(["name", "entry_point", "agents", "routing", "settings"]);
  });

  it("refuses an empty or taken name, no members, unknown members", () => {
    const spec = frozen(examCrew());
    expect(createGroup(spec, " ", ["student"])).toEqual({ ok: false, error: "Every group needs a name" });
    expect(createGroup(spec, "exam_round", ["student"])).toEqual({ ok: false, error: "There is already a group called 'exam_round'" });
    expect(createGroup(spec, "teacher", ["student"])).toEqual({
      ok: false,
      error: "There is already an agent called 'teacher'; a group needs another name",
    });
    expect(createGroup(spec, "round", [])).toEqual({ ok: false, error: "Pick at least one agent for the group" });
    expect(createGroup(spec, "round", ["ghost"])).toEqual({ ok: false, error: "There is no agent called 'ghost'" });
  });
});

describe("members", () => {
  it("adds and removes members; a group may be left empty", () => {
    const spec = frozen(examCrew());
    const added = specOf(addMember(spec, "exam_round", "teacher"));
    expect(added.routing!.parallel_groups!.exam_round.agents).toEqual(["student", "reporter", "teacher"]);
    expect(addMember(added, "exam_round", "teacher")).toEqual({ ok: false, error: "'teacher' is already in the group 'exam_round'" });
    const one = specOf(removeMember(spec, "exam_round", "student"));
    const none = specOf(removeMember(one, "exam_round", "reporter"));
    expect(none.routing!.parallel_groups!.exam_round).toMatchObject({ agents: [], next_agent: "teacher" });
    expect(removeMember(none, "exam_round", "reporter")).toEqual({ ok: false, error: "'reporter' is not in the group 'exam_round'" });
  });
});

describe("updateGroup", () => {
  it("changes settings in place; an emptied next agent goes back to the emitter", () => {
    const next = specOf(updateGroup(frozen(examCrew()), "exam_round", { timeout: "45s", wait_for_all: false, next_agent: "" }));
    expect(next.routing!.parallel_groups!.exam_round).toEqual({
      agents: ["student", "reporter"],
      timeout: "45s",
      wait_for_all: false,
      description: "The student answers while the reporter scores.",
    });
    expect(updateGroup(examCrew(), "exam_round", { next_agent: "ghost" })).toEqual({ ok: false, error: "There is no agent called 'ghost'" });
  });

  it("replaces the Go engine's timeout_seconds with one timeout", () => {
    const next = specOf(updateGroup(frozen(quizCrew()), "after_answer", { timeout: "1m" }));
    expect(next.routing!.parallel_groups!.after_answer).toEqual({
      agents: ["scorekeeper", "commentator"],
      timeout: "1m",
      wait_for_all: false,
      next_agent: "quizmaster",
    });
  });
});

describe("renameGroup and removeGroup", () => {
  it("renames a group in place; rules and valid targets follow", () => {
    const result = renameGroup(frozen(examCrew()), "exam_round", "round");
    const expected = examCrew();
    expected.signals![0].valid_targets = ["round"];
    expected.routing!.signals!.teacher[0].target = "round";
    expected.routing!.parallel_groups = { round: expected.routing!.parallel_groups!.exam_round };
    expect(result).toEqual({ ok: true, spec: expected, renamed: { "group:exam_round": "group:round" } });
    expect(renameGroup(examCrew(), "exam_round", "student").ok).toBe(false);
  });

  it("removes a group with the rules leading to it", () => {
    const next = specOf(removeGroup(frozen(examCrew()), "exam_round"));
    const expected = examCrew();
    expected.signals![0] = { name: "[QUESTION]", behavior: "parallel", description: "asks a question", allowed_agents: ["teacher"] };
    expected.routing = { strategy: "signals", signals: { teacher: [{ signal: "[END_EXAM]", target: "" }] } };
    expect(next).toEqual(expected);
    expect(removeGroup(next, "exam_round")).toEqual({ ok: false, error: "There is no group called 'exam_round'" });
  });
});
