// Crews for the editor's tests, as the engine hands them over (`CrewSpec`, keys in
// file order): the exam of crews/exam.yaml (a strict registry), the Go-engine quiz
// of crews/go-quiz (no `signals:`, so an implicit registry), and a small newsroom
// whose editor broadcasts to two writers.
import type { CrewDocument } from "../bindings/CrewDocument";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ProblemView } from "../bindings/ProblemView";
import type { AgentView } from "../bindings/AgentView";

export function examCrew(): CrewSpec {
  return {
    version: "1.0",
    name: "Fractions exam",
    description: "A teacher asks, a student answers, a reporter keeps score.",
    entry_point: "teacher",
    max_handoffs: 12,
    agents: [
      {
        id: "teacher",
        name: "Teacher",
        role: "Asks one question at a time",
        tags: ["math", "exam", "fractions"],
        model: "default",
        temperature: 0.3,
        tools: ["calculator"],
        system_prompt: "You are a patient maths teacher.\n",
      },
      { id: "student", name: "Student", role: "Answers the teacher's questions", model: "default", temperature: 0.7 },
      { id: "reporter", name: "Reporter", role: "Keeps score", model: "default", temperature: 0, tools: ["calculator"] },
    ],
    signals: [
      {
        name: "[QUESTION]",
        behavior: "parallel",
        description: "asks a question",
        allowed_agents: ["teacher"],
        valid_targets: ["exam_round"],
      },
      { name: "[END_EXAM]", behavior: "terminate", description: "ends the exam", allowed_agents: ["teacher"] },
    ],
    routing: {
      strategy: "signals",
      signals: {
        teacher: [
          { signal: "[QUESTION]", target: "exam_round" },
          { signal: "[END_EXAM]", target: "" },
        ],
      },
      parallel_groups: {
        exam_round: {
          agents: ["student", "reporter"],
          timeout: "30s",
          wait_for_all: true,
          next_agent: "teacher",
          description: "The student answers while the reporter scores.",
        },
      },
    },
  };
}

export function quizCrew(): CrewSpec {
  return {
    version: "1.0",
    name: "quiz-crew",
    entry_point: "quizmaster",
    agents: [
      { id: "quizmaster", name: "Quizmaster" },
      { id: "contestant", name: "Contestant" },
      { id: "scorekeeper", name: "Scorekeeper" },
      { id: "commentator", name: "Commentator" },
    ],
    routing: {
      signals: {
        quizmaster: [
          { signal: "[QUESTION]", target: "contestant", description: "Put the next question to the contestant" },
          { signal: "[END_QUIZ]", target: "", description: "The quiz is over" },
        ],
        contestant: [
          { signal: "[ANSWER]", target: "after_answer", description: "Let the scorekeeper and the commentator react" },
        ],
      },
      parallel_groups: {
        after_answer: {
          agents: ["scorekeeper", "commentator"],
          wait_for_all: false,
          timeout_seconds: "20",
          next_agent: "quizmaster",
        },
      },
      defaults: { contestant: "quizmaster" },
      agent_behaviors: { quizmaster: { wait_for_signal: false }, contestant: { wait_for_signal: false } },
    },
    settings: { max_handoffs: 12, max_rounds: 20 },
  };
}

export function newsroomCrew(): CrewSpec {
  return {
    name: "Newsroom",
    entry_point: "editor",
    agents: [
      { id: "editor", name: "Editor", handoff_targets: ["writer_a"] },
      { id: "writer_a", name: "Writer A", handoff_targets: ["editor"] },
      { id: "writer_b", name: "Writer B" },
    ],
    signals: [{ name: "[ASSIGN]", behavior: "broadcast", allowed_agents: ["editor"], valid_targets: ["writer_a", "writer_b"] }],
    routing: {
      signals: {
        editor: [
          { signal: "[ASSIGN]", target: ["writer_a", "writer_b"] },
          { signal: "[DONE]", target: "" },
        ],
        writer_a: [{ signal: "[NEXT]", target: "editor" }],
        writer_b: [{ signal: "[NEXT]", target: "editor" }],
      },
    },
  };
}

/** Freezes a value and everything in it, so a test fails if an edit mutates its input. */
export function frozen<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) frozen(child);
  }
  return value;
}

/** An engine verdict naming its crew, with the given problems (the graph left empty). */
export function crewDocument(name: string, problems: ProblemView[] = []): CrewDocument {
  return {
    path: "",
    name,
    description: "",
    valid: problems.every((p) => p.diagnostic.severity !== "error"),
    parsed: true,
    strategy: "signals",
    layout: "file",
    entry_point: null,
    max_handoffs: null,
    agents: [],
    signals: [],
    graph: { nodes: [], edges: [] },
    problems,
  };
}

/** An agent as a crew document lists it, for tests: plain, with `more` on top. */
export const agentView = (id: string, name: string, more: Partial<AgentView> = {}): AgentView => ({
  id,
  name,
  role: "",
  description: "",
  objective: "",
  tags: [],
  system_prompt: "",
  model: null,
  temperature: null,
  tools: [],
  handoff_targets: [],
  is_terminal: false,
  wait_for_signal: false,
  automatic_fallback: null,
  runtime: false,
  ...more,
});
