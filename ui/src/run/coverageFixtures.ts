// A route-coverage report for the tests, shaped as `crewgraph test --json` answers
// for the exam crew, with one arrow added that no run can take.
import type { CrewTest } from "../bindings/CrewTest";

export function coverageReport(): CrewTest {
  const arrow = (id: string, from: string, to: string, label: string, taken: number, runs: number, unreachable?: string) => ({
    id,
    from,
    to,
    label,
    kind: id.startsWith("next:") ? ("group_next" as const) : ("signal" as const),
    taken,
    runs,
    ...(unreachable ? { unreachable } : {}),
  });
  const scenario = (arrowId: string) => ({
    arrow: arrowId,
    input: "Route coverage of Fractions exam",
    expected: "terminated" as const,
    status: "terminated" as const,
    took_arrow: true,
    passed: true,
    handoffs: 2,
    script: "replies: {}",
  });
  return {
    crew: "Fractions exam",
    mode: "scenarios",
    passed: false,
    runs: 3,
    arrows: [
      arrow("rule:teacher:0:group:exam_round", "Teacher", "exam_round", "[QUESTION]", 2, 2),
      arrow("rule:teacher:1:end", "Teacher", "End", "[END_EXAM]", 3, 3),
      arrow("next:exam_round:agent:teacher", "exam_round", "Teacher", "then", 2, 2),
      arrow("rule:teacher:2:agent:student", "Teacher", "Student", "[ASK]", 0, 0, "a reply with [ASK] is taken by teacher's rule on [END_EXAM] first"),
    ],
    agents: [
      { agent: "teacher", name: "Teacher", reached: true, replies: 7, without_signal: 0 },
      { agent: "student", name: "Student", reached: true, replies: 2, without_signal: 0 },
      { agent: "reporter", name: "Reporter", reached: false, unreached: "no run from Teacher (where runs start) gives Reporter work", replies: 0, without_signal: 0 },
    ],
    scenarios: [scenario("rule:teacher:0:group:exam_round"), scenario("rule:teacher:1:end"), scenario("next:exam_round:agent:teacher")],
    probes: [],
    handoffs_per_run: 1.3,
    loops: 0,
    tokens_per_run: 0,
    unshown_moves: 0,
    notes: ["Teacher and Reporter have tools; the scenarios' replies call none (probes on a model try them)."],
  };
}
