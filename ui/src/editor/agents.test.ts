import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import { addAgent, newAgentId, removeAgents, renameAgent, uniqueAgentId, updateAgent } from "./agents";
import { examCrew, frozen, newsroomCrew, quizCrew } from "./fixtures";
import type { EditResult } from "./result";

/** The spec of an accepted edit (fails the test on a refusal). */
function specOf(result: EditResult): CrewSpec {
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.spec;
}

describe("addAgent", () => {
  it("writes the form's fields in the crew file's order, leaving out empty ones", () => {
    const spec = frozen(examCrew());
    const next = specOf(
      addAgent(spec, {
        wait_for_signal: false,
        tools: [],
        temperature: 0.2,
        description: "",
        tags: ["grading"],
        role: "Grades",
        name: "Grader",
        id: "grader",
      }),
    );
    const grader = next.agents[3];
    // Why: the agent becomes YAML in this order, and "" or [] would be noise in the file.
    expect(Object.keys(grader)).toEqual(["id", "name", "role", "tags", "temperature", "wait_for_signal"]);
    expect(grader).toEqual({ id: "grader", name: "Grader", role: "Grades", tags: ["grading"], temperature: 0.2, wait_for_signal: false });
    expect(next.agents[0]).toBe(spec.agents[0]);
    expect(next.entry_point).toBe("teacher");
  });

  it("makes the first agent of a new crew its entry point, written before the agents", () => {
    const next = specOf(addAgent(frozen({ version: "1.0", name: "Solo", agents: [] }), { id: "solo" }));
    expect(next).toEqual({ version: "1.0", name: "Solo", entry_point: "solo", agents: [{ id: "solo" }] });
    expect(Object.keys(next)).toEqual(["version", "name", "entry_point", "agents"]);
  });

  it("refuses an empty, taken or malformed id in plain words, changing nothing", () => {
    const spec = frozen(examCrew());
    expect(addAgent(spec, { id: "  " })).toEqual({ ok: false, error: "Every agent needs an id" });
    expect(addAgent(spec, { name: "Nameless" })).toEqual({ ok: false, error: "Every agent needs an id" });
    expect(addAgent(spec, { id: "student" })).toEqual({ ok: false, error: "There is already an agent called 'student'" });
    expect(addAgent(spec, { id: "exam_round" })).toEqual({ ok: false, error: "There is already a group called 'exam_round'" });
    const spaced = addAgent(spec, { id: "head teacher" });
    expect(spaced.ok).toBe(false);
    expect(!spaced.ok && spaced.error).toContain("no spaces");
  });
});

describe("updateAgent", () => {
  it("keeps existing keys in place, puts new ones where they belong and drops emptied text", () => {
    const spec = frozen(examCrew());
    const next = specOf(
      updateAgent(spec, "teacher", { description: "Runs the exam", role: "", temperature: 0.5, is_terminal: false }),
    );
    expect(Object.keys(next.agents[0])).toEqual([
      "id",
      "name",
      "description",
      "tags",
      "model",
      "temperature",
      "tools",
      "system_prompt",
      "is_terminal",
    ]);
    expect(next.agents[0].temperature).toBe(0.5);
    expect(next.agents[0].role).toBeUndefined();
    expect(next.agents[1]).toBe(spec.agents[1]);
  });

  it("refuses an agent that is not there", () => {
    expect(updateAgent(examCrew(), "ghost", { name: "Ghost" })).toEqual({ ok: false, error: "There is no agent called 'ghost'" });
  });
});

describe("renameAgent", () => {
  it("moves every reference of the exam's teacher to the new id", () => {
    const result = renameAgent(frozen(examCrew()), "teacher", "examiner");
    const expected = examCrew();
    expected.entry_point = "examiner";
    expected.agents[0].id = "examiner";
    expected.signals![0].allowed_agents = ["examiner"];
    expected.signals![1].allowed_agents = ["examiner"];
    expected.routing!.signals = { examiner: expected.routing!.signals!.teacher };
    expected.routing!.parallel_groups!.exam_round.next_agent = "examiner";
    expect(result).toEqual({ ok: true, spec: expected, renamed: { "agent:teacher": "agent:examiner" } });
  });

  it("follows Go-engine references: defaults (key and value), behaviours, rule targets, group members", () => {
    const contestant = specOf(renameAgent(frozen(quizCrew()), "contestant", "player"));
    expect(contestant.routing!.signals!.quizmaster[0].target).toBe("player");
    expect(Object.keys(contestant.routing!.signals!)).toEqual(["quizmaster", "player"]);
    expect(contestant.routing!.defaults).toEqual({ player: "quizmaster" });
    expect(Object.keys(contestant.routing!.agent_behaviors!)).toEqual(["quizmaster", "player"]);
    const quizmaster = specOf(renameAgent(frozen(quizCrew()), "quizmaster", "host"));
    expect(quizmaster.routing!.defaults).toEqual({ contestant: "host" });
    expect(quizmaster.routing!.parallel_groups!.after_answer.next_agent).toBe("host");
    const scorer = specOf(renameAgent(frozen(quizCrew()), "scorekeeper", "judge"));
    expect(scorer.routing!.parallel_groups!.after_answer.agents).toEqual(["judge", "commentator"]);
  });

  it("follows broadcast lists, handoff targets and valid targets", () => {
    const next = specOf(renameAgent(frozen(newsroomCrew()), "writer_a", "alice"));
    expect(next.routing!.signals!.editor[0].target).toEqual(["alice", "writer_b"]);
    expect(next.agents[0].handoff_targets).toEqual(["alice"]);
    expect(next.signals![0].valid_targets).toEqual(["alice", "writer_b"]);
    expect(Object.keys(next.routing!.signals!)).toEqual(["editor", "alice", "writer_b"]);
  });

  it("follows the scoring strategy's finalizer", () => {
    const spec: CrewSpec = { entry_point: "triage", agents: [{ id: "triage" }, { id: "closer" }], routing: { strategy: "scoring", finalizer: "closer" } };
    expect(specOf(renameAgent(frozen(spec), "closer", "writer")).routing).toEqual({ strategy: "scoring", finalizer: "writer" });
  });

  it("refuses a taken id or an unknown agent", () => {
    expect(renameAgent(examCrew(), "teacher", "student")).toEqual({ ok: false, error: "There is already an agent called 'student'" });
    expect(renameAgent(examCrew(), "ghost", "x")).toEqual({ ok: false, error: "There is no agent called 'ghost'" });
    expect(renameAgent(examCrew(), "teacher", "")).toEqual({ ok: false, error: "Every agent needs an id" });
  });
});

describe("removeAgents", () => {
  it("removes the exam's teacher and everything that names it", () => {
    const next = specOf(removeAgents(frozen(examCrew()), ["teacher"]));
    const expected: CrewSpec = {
      version: "1.0",
      name: "Fractions exam",
      description: "A teacher asks, a student answers, a reporter keeps score.",
      entry_point: "student",
      max_handoffs: 12,
      agents: examCrew().agents.slice(1),
      signals: [
        { name: "[QUESTION]", behavior: "parallel", description: "asks a question", valid_targets: ["exam_round"] },
        { name: "[END_EXAM]", behavior: "terminate", description: "ends the exam" },
      ],
      routing: {
        strategy: "signals",
        parallel_groups: {
          exam_round: {
            agents: ["student", "reporter"],
            timeout: "30s",
            wait_for_all: true,
            description: "The student answers while the reporter scores.",
          },
        },
      },
    };
    // Why: `routing.signals` held only the teacher's rules, so the emptied container goes too.
    expect(next).toEqual(expected);
  });

  it("takes removed agents out of groups, broadcasts and valid targets", () => {
    const exam = specOf(removeAgents(frozen(examCrew()), ["student"]));
    expect(exam.routing!.parallel_groups!.exam_round.agents).toEqual(["reporter"]);
    const one = specOf(removeAgents(frozen(newsroomCrew()), ["writer_b"]));
    expect(one.routing!.signals).toEqual({
      editor: [
        { signal: "[ASSIGN]", target: ["writer_a"] },
        { signal: "[DONE]", target: "" },
      ],
      writer_a: [{ signal: "[NEXT]", target: "editor" }],
    });
    expect(one.signals![0].valid_targets).toEqual(["writer_a"]);
    const both = specOf(removeAgents(frozen(newsroomCrew()), ["writer_a", "writer_b"]));
    // A broadcast left without targets goes; the editor's handoff list is emptied away.
    expect(both.routing!.signals).toEqual({ editor: [{ signal: "[DONE]", target: "" }] });
    expect(both.agents).toEqual([{ id: "editor", name: "Editor" }]);
    expect(both.signals).toEqual([{ name: "[ASSIGN]", behavior: "broadcast", allowed_agents: ["editor"] }]);
  });

  it("removes a single-target rule to a removed agent, and Go defaults and behaviours", () => {
    const next = specOf(removeAgents(frozen(quizCrew()), ["quizmaster"]));
    expect(next.entry_point).toBe("contestant");
    expect(next.routing).toEqual({
      signals: {
        contestant: [
          { signal: "[ANSWER]", target: "after_answer", description: "Let the scorekeeper and the commentator react" },
        ],
      },
      parallel_groups: {
        after_answer: { agents: ["scorekeeper", "commentator"], wait_for_all: false, timeout_seconds: "20" },
      },
      agent_behaviors: { contestant: { wait_for_signal: false } },
    });
    const noContestant = specOf(removeAgents(frozen(quizCrew()), ["contestant"]));
    expect(noContestant.routing!.signals).toEqual({
      quizmaster: [{ signal: "[END_QUIZ]", target: "", description: "The quiz is over" }],
    });
    expect(noContestant.routing!.defaults).toBeUndefined();
  });

  it("removes the entry point when no agent is left, and refuses unknown ids", () => {
    const next = specOf(removeAgents(frozen({ name: "Solo", entry_point: "a", agents: [{ id: "a" }] }), ["a"]));
    expect(next).toEqual({ name: "Solo", agents: [] });
    expect(removeAgents(examCrew(), ["ghost"]).ok).toBe(false);
  });
});

describe("ids", () => {
  it("numbers a taken id, avoiding agents and groups", () => {
    const spec = examCrew();
    expect(uniqueAgentId(spec, "grader")).toBe("grader");
    expect(uniqueAgentId(spec, "teacher")).toBe("teacher_2");
    expect(uniqueAgentId(specOf(addAgent(spec, { id: "teacher_2" })), "teacher")).toBe("teacher_3");
    expect(uniqueAgentId(spec, "exam_round")).toBe("exam_round_2");
  });

  it("slugs a display name, keeping letters of any script", () => {
    expect(newAgentId("Head Teacher")).toBe("head_teacher");
    expect(newAgentId("  Giáo viên  chính ")).toBe("giáo_viên_chính");
    expect(newAgentId("Q&A bot v2.1!")).toBe("qa_bot_v2.1");
    expect(newAgentId("???")).toBe("agent");
  });
});
