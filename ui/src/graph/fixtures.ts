// A small crew graph as the engine hands it over, for the unit tests: a teacher
// who starts a parallel round (student + reporter) or ends the exam, with a
// fallback to the student.
import type { GraphView } from "../bindings/GraphView";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";

const node = (over: Partial<ViewNode> & Pick<ViewNode, "id" | "kind" | "label">): ViewNode => ({
  agent: null,
  role: null,
  model: null,
  description: null,
  tags: [],
  parent: null,
  entry: false,
  terminal: false,
  waits: false,
  group: null,
  ...over,
});

const edge = (over: Partial<ViewEdge> & Pick<ViewEdge, "id" | "source" | "target" | "kind" | "label">): ViewEdge => ({
  signal: null,
  behavior: null,
  description: null,
  rule: null,
  ...over,
});

export const examGraph: GraphView = {
  nodes: [
    node({
      id: "group:round",
      kind: "group",
      label: "round",
      group: { id: "round", members: ["student", "reporter"], timeout_ms: 30000, wait_for_all: true, next_agent: "teacher" },
    }),
    node({ id: "agent:teacher", kind: "agent", label: "Teacher", agent: "teacher", role: "Asks", entry: true }),
    node({ id: "agent:student", kind: "agent", label: "Student", agent: "student", parent: "group:round" }),
    node({ id: "agent:reporter", kind: "agent", label: "Reporter", agent: "reporter", parent: "group:round" }),
    node({ id: "end", kind: "end", label: "End" }),
  ],
  edges: [
    edge({
      id: "rule:teacher:0:group:round",
      source: "agent:teacher",
      target: "group:round",
      kind: "signal",
      label: "[QUESTION]",
      signal: "[QUESTION]",
      behavior: "parallel",
      description: "asks a question",
      rule: { agent: "teacher", index: 0 },
    }),
    edge({
      id: "rule:teacher:1:end",
      source: "agent:teacher",
      target: "end",
      kind: "signal",
      label: "[END_EXAM]",
      signal: "[END_EXAM]",
      behavior: "terminate",
      description: "ends the exam once every question has been asked and scored",
      rule: { agent: "teacher", index: 1 },
    }),
    edge({ id: "next:round:agent:teacher", source: "group:round", target: "agent:teacher", kind: "group_next", label: "then" }),
    edge({ id: "fallback:teacher:agent:student", source: "agent:teacher", target: "agent:student", kind: "fallback", label: "otherwise" }),
  ],
};
