import { describe, expect, it, vi } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { Arrow, NodeRef } from "../graph/refs";
import { addAgent } from "./agents";
import {
  addFallback,
  connect,
  connectTarget,
  edgeToEdit,
  removeEdge,
  removeFallback,
  removeRule,
  repointEdge,
  repointKind,
  updateRule,
} from "./edges";
import { examCrew, frozen, newsroomCrew, quizCrew } from "./fixtures";
import type { EditResult } from "./result";

function specOf(result: EditResult): CrewSpec {
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.spec;
}

function errorOf(result: EditResult): string {
  if (result.ok) throw new Error("expected a refusal");
  return result.error;
}

/** The nodes an edge may join or be dropped on, as their data says what they are. */
const at = {
  agent: (agent: string): NodeRef => ({ kind: "agent", agent, group: null }),
  group: (group: string): NodeRef => ({ kind: "group", agent: null, group }),
  end: { kind: "end", agent: null, group: null } as NodeRef,
  wait: { kind: "wait", agent: null, group: null } as NodeRef,
  router: { kind: "router", agent: null, group: null } as NodeRef,
};

/** An edge of the engine's view between `source` and `target`. */
const arrow = (source: NodeRef, target: NodeRef, over: Partial<ViewEdge> & Pick<ViewEdge, "id" | "source" | "target" | "kind">): Arrow => ({
  view: { label: "", signal: null, behavior: null, description: null, rule: null, ...over },
  source,
  target,
});

describe("connectTarget", () => {
  it("maps each kind of node to what a rule leads to", () => {
    expect(connectTarget(at.agent("student"))).toEqual({ kind: "agent", id: "student" });
    expect(connectTarget(at.group("exam_round"))).toEqual({ kind: "group", id: "exam_round" });
    expect(connectTarget(at.end)).toEqual({ kind: "end" });
    expect(connectTarget(at.wait)).toEqual({ kind: "wait" });
    expect(connectTarget(at.router)).toBeNull();
    expect(connectTarget(at.agent(""))).toBeNull();
  });
});

describe("connect in a strict registry (the exam)", () => {
  it("draws a built-in terminate signal to End as a rule with an empty target, registering nothing", () => {
    const result = connect(frozen(examCrew()), { from: "teacher", to: at.end, signal: "[END]" });
    const expected = examCrew();
    expected.routing!.signals!.teacher.push({ signal: "[END]", target: "" });
    expect(result).toEqual({ ok: true, spec: expected, rule: { agent: "teacher", index: 2 } });
  });

  it("registers a new signal with the edge's behaviour, and writes the rule's description", () => {
    const next = specOf(
      connect(frozen(examCrew()), { from: "student", to: at.agent("teacher"), signal: " [HINT] ", description: "needs a hint" }),
    );
    const expected = examCrew();
    expected.signals!.push({ name: "[HINT]", behavior: "route" });
    expected.routing!.signals!.student = [{ signal: "[HINT]", target: "teacher", description: "needs a hint" }];
    expect(next).toEqual(expected);
    expect(Object.keys(next.routing!)).toEqual(["strategy", "signals", "parallel_groups"]);
  });

  it("registers a new pause signal drawn to Wait", () => {
    const next = specOf(connect(frozen(examCrew()), { from: "student", to: at.wait, signal: "[STUCK]" }));
    expect(next.signals!.at(-1)).toEqual({ name: "[STUCK]", behavior: "pause" });
    expect(next.routing!.signals!.student).toEqual([{ signal: "[STUCK]", target: "" }]);
  });

  it("refuses a signal whose registered or built-in behaviour does not fit the edge", () => {
    const spec = frozen(examCrew());
    expect(errorOf(connect(spec, { from: "teacher", to: at.agent("student"), signal: "[END_EXAM]" }))).toBe(
      "'[END_EXAM]' ends the run, so it cannot lead to 'student'. Pick another signal.",
    );
    expect(errorOf(connect(spec, { from: "teacher", to: at.agent("student"), signal: "[END]" }))).toContain("ends the run");
    expect(errorOf(connect(spec, { from: "student", to: at.end, signal: "[NEXT]" }))).toBe(
      "'[NEXT]' hands the work to one agent, so it cannot lead to End. Pick another signal.",
    );
    expect(errorOf(connect(spec, { from: "student", to: at.agent("teacher"), signal: "[WAIT]" }))).toContain("waits for you");
    expect(errorOf(connect(spec, { from: "student", to: at.wait, signal: "[END]" }))).toContain("cannot lead to Wait");
  });

  it("lets a route signal start a group (the engine runs it), but not a terminate one", () => {
    const next = specOf(connect(frozen(examCrew()), { from: "reporter", to: at.group("exam_round"), signal: "[NEXT]" }));
    expect(next.routing!.signals!.reporter).toEqual([{ signal: "[NEXT]", target: "exam_round" }]);
    expect(next.signals).toEqual(examCrew().signals);
    expect(connect(examCrew(), { from: "reporter", to: at.group("exam_round"), signal: "[DONE]" }).ok).toBe(false);
  });

  it("refuses what the signal's entry forbids: other senders, other targets", () => {
    expect(errorOf(connect(frozen(examCrew()), { from: "student", to: at.group("exam_round"), signal: "[QUESTION]" }))).toBe(
      "Only 'teacher' may send '[QUESTION]'; change that in the signal list first",
    );
    const withCritic = specOf(addAgent(newsroomCrew(), { id: "critic" }));
    expect(
      errorOf(connect(frozen(withCritic), { from: "editor", to: at.agent("critic"), signal: "[ASSIGN]", behavior: "broadcast" })),
    ).toBe("'[ASSIGN]' may only lead to 'writer_a', 'writer_b'; change that in the signal list first");
  });
});

describe("connect refusals", () => {
  const spec = frozen(examCrew());

  it("refuses an empty signal without asking the checker", () => {
    const check = vi.fn(() => null);
    expect(connect(spec, { from: "teacher", to: at.end, signal: "  " }, { checkSignal: check })).toEqual({
      ok: false,
      error: "Pick or type the signal for this connection",
    });
    expect(check).not.toHaveBeenCalled();
  });

  it("asks the engine's checker about the name and refuses with its message", () => {
    const check = vi.fn((name: string) => (name === "[]" ? "invalid signal format '[]'" : null));
    expect(connect(spec, { from: "teacher", to: at.end, signal: "[]" }, { checkSignal: check })).toEqual({
      ok: false,
      error: "invalid signal format '[]'",
    });
    expect(check).toHaveBeenCalledWith("[]");
    expect(connect(spec, { from: "teacher", to: at.end, signal: "[FIN]" }, { checkSignal: check }).ok).toBe(true);
  });

  it("refuses the same rule twice", () => {
    expect(errorOf(connect(spec, { from: "teacher", to: at.end, signal: "[END_EXAM]" }))).toBe(
      "'teacher' already sends '[END_EXAM]' to End",
    );
    expect(errorOf(connect(spec, { from: "teacher", to: at.group("exam_round"), signal: "[QUESTION]" }))).toBe(
      "'teacher' already sends '[QUESTION]' to the group 'exam_round'",
    );
    expect(
      errorOf(connect(newsroomCrew(), { from: "editor", to: at.agent("writer_b"), signal: "[ASSIGN]", behavior: "broadcast" })),
    ).toBe("'editor' already sends '[ASSIGN]' to 'writer_b'");
  });

  it("refuses unknown ends, the router, a broadcast to a group and a parallel start of an agent", () => {
    expect(errorOf(connect(spec, { from: "ghost", to: at.end, signal: "[END]" }))).toBe("There is no agent called 'ghost'");
    expect(errorOf(connect(spec, { from: "teacher", to: at.agent("ghost"), signal: "[NEXT]" }))).toBe(
      "There is no agent called 'ghost'",
    );
    expect(errorOf(connect(spec, { from: "teacher", to: at.group("nope"), signal: "[NEXT]" }))).toBe(
      "There is no group called 'nope'",
    );
    expect(errorOf(connect(spec, { from: "teacher", to: at.router, signal: "[NEXT]" }))).toContain("can only lead to");
    expect(
      errorOf(connect(spec, { from: "teacher", to: at.group("exam_round"), signal: "[ALL]", behavior: "broadcast" })),
    ).toBe("A broadcast goes to agents, not to a group");
    expect(errorOf(connect(spec, { from: "teacher", to: at.agent("student"), signal: "[GO]", behavior: "parallel" }))).toContain(
      "Only a group",
    );
  });

  it("asks before connecting an agent to itself", () => {
    const asked = connect(spec, { from: "student", to: at.agent("student"), signal: "[RETRY]" });
    expect(asked).toEqual({
      ok: false,
      needsConfirmation: true,
      error: "'student' would hand the work back to itself on '[RETRY]'. Connect it anyway?",
    });
    const confirmed = specOf(connect(spec, { from: "student", to: at.agent("student"), signal: "[RETRY]" }, { confirmSelf: true }));
    expect(confirmed.routing!.signals!.student).toEqual([{ signal: "[RETRY]", target: "student" }]);
  });
});

describe("connect in an implicit registry (the Go quiz)", () => {
  it("adds a terminate rule and leaves the crew without a signals section", () => {
    const next = specOf(connect(frozen(quizCrew()), { from: "contestant", to: at.end, signal: "[GIVE_UP]" }));
    const expected = quizCrew();
    expected.routing!.signals!.contestant.push({ signal: "[GIVE_UP]", target: "" });
    expect(next).toEqual(expected);
  });

  it("accepts any signal for a route: the rule itself says what it does", () => {
    const next = specOf(connect(frozen(quizCrew()), { from: "scorekeeper", to: at.agent("quizmaster"), signal: "[END]" }));
    expect(next.signals).toBeUndefined();
    expect(next.routing!.signals!.scorekeeper).toEqual([{ signal: "[END]", target: "quizmaster" }]);
  });

  it("makes the registry strict before drawing a pause, which a target cannot imply", () => {
    const next = specOf(connect(frozen(quizCrew()), { from: "contestant", to: at.wait, signal: "[WAIT]" }));
    const expected = quizCrew();
    // Inserted after `agents`, before `routing`; every signal the rules use keeps its behaviour.
    const { routing, settings, ...head } = expected;
    const strict: CrewSpec = {
      ...head,
      signals: [
        { name: "[QUESTION]", behavior: "route", description: "Put the next question to the contestant" },
        { name: "[END_QUIZ]", behavior: "terminate", description: "The quiz is over" },
        { name: "[ANSWER]", behavior: "parallel", description: "Let the scorekeeper and the commentator react" },
      ],
      routing,
      settings,
    };
    strict.routing!.signals!.contestant.push({ signal: "[WAIT]", target: "" });
    expect(next).toEqual(strict);
    expect(Object.keys(next)).toEqual(["version", "name", "entry_point", "agents", "signals", "routing", "settings"]);
  });

  it("broadcasts: a one-target broadcast makes the registry strict, the next target joins its list", () => {
    const first = specOf(
      connect(frozen(quizCrew()), { from: "quizmaster", to: at.agent("scorekeeper"), signal: "[CHEER]", behavior: "broadcast" }),
    );
    expect(first.signals!.at(-1)).toEqual({ name: "[CHEER]", behavior: "broadcast" });
    expect(first.routing!.signals!.quizmaster[2]).toEqual({ signal: "[CHEER]", target: ["scorekeeper"] });
    const second = connect(frozen(first), { from: "quizmaster", to: at.agent("commentator"), signal: "[CHEER]" });
    // The registered behaviour (broadcast) is taken when the person does not pick one.
    expect(second).toEqual({
      ok: true,
      spec: {
        ...first,
        routing: {
          ...first.routing,
          signals: {
            ...first.routing!.signals,
            quizmaster: [
              ...first.routing!.signals!.quizmaster.slice(0, 2),
              { signal: "[CHEER]", target: ["scorekeeper", "commentator"] },
            ],
          },
        },
      },
      rule: { agent: "quizmaster", index: 2 },
    });
  });
});

describe("connect broadcasts in a strict registry", () => {
  it("turns a single target into a list when another target joins the broadcast", () => {
    const spec = newsroomCrew();
    spec.routing!.signals!.editor[0] = { signal: "[ASSIGN]", target: "writer_a" };
    const next = specOf(connect(frozen(spec), { from: "editor", to: at.agent("writer_b"), signal: "[ASSIGN]" }));
    expect(next.routing!.signals!.editor[0]).toEqual({ signal: "[ASSIGN]", target: ["writer_a", "writer_b"] });
    expect(next.signals).toBe(spec.signals);
  });

  it("refuses a route on a broadcast signal and a broadcast on a route signal", () => {
    const spec = frozen(newsroomCrew());
    expect(connect(spec, { from: "editor", to: at.agent("writer_a"), signal: "[ASSIGN]", behavior: "route" }).ok).toBe(false);
    expect(connect(spec, { from: "writer_a", to: at.agent("writer_b"), signal: "[NEXT]", behavior: "broadcast" }).ok).toBe(false);
  });
});

describe("rules", () => {
  it("removes a rule, and the emptied containers with the last one", () => {
    const spec = frozen(examCrew());
    const one = specOf(removeRule(spec, "teacher", 0));
    expect(one.routing!.signals).toEqual({ teacher: [{ signal: "[END_EXAM]", target: "" }] });
    const none = specOf(removeRule(one, "teacher", 0));
    expect(none.routing).toEqual({ strategy: "signals", parallel_groups: examCrew().routing!.parallel_groups });
    expect(removeRule(spec, "teacher", 5)).toEqual({ ok: false, error: "That connection is no longer there" });
  });

  it("changes a rule's signal, registering a new one with the rule's behaviour", () => {
    const next = specOf(updateRule(frozen(examCrew()), "teacher", 1, { signal: "[FINISHED]", description: "all asked" }));
    expect(next.routing!.signals!.teacher[1]).toEqual({ signal: "[FINISHED]", target: "", description: "all asked" });
    expect(next.signals!.at(-1)).toEqual({ name: "[FINISHED]", behavior: "terminate" });
  });

  it("refuses a signal that does not fit the rule, an empty signal, unknown targets and a duplicate", () => {
    const spec = frozen(examCrew());
    expect(errorOf(updateRule(spec, "teacher", 1, { signal: "[NEXT]" }))).toContain("hands the work to one agent");
    expect(errorOf(updateRule(spec, "teacher", 1, { signal: " " }))).toBe("A connection needs a signal");
    expect(errorOf(updateRule(spec, "teacher", 0, { target: "ghost" }))).toBe("There is no agent or group called 'ghost'");
    const twice = specOf(connect(spec, { from: "teacher", to: at.end, signal: "[END]" }));
    expect(errorOf(updateRule(twice, "teacher", 2, { signal: "[END_EXAM]" }))).toContain("already has a connection");
  });

  it("drops an emptied description rather than writing an empty one", () => {
    const next = specOf(updateRule(frozen(quizCrew()), "quizmaster", 1, { description: "" }));
    expect(next.routing!.signals!.quizmaster[1]).toEqual({ signal: "[END_QUIZ]", target: "" });
  });
});

describe("fallbacks", () => {
  it("adds a handoff target where the agent's keys say it goes", () => {
    const next = specOf(addFallback(frozen(examCrew()), "student", "teacher"));
    expect(Object.keys(next.agents[1])).toEqual(["id", "name", "role", "model", "temperature", "handoff_targets"]);
    expect(next.agents[1].handoff_targets).toEqual(["teacher"]);
    expect(errorOf(addFallback(next, "student", "teacher"))).toBe("'student' already falls back to 'teacher'");
    expect(errorOf(addFallback(next, "student", "student"))).toBe("An agent cannot fall back to itself");
  });

  it("removes a handoff target, or a Go engine default", () => {
    const news = specOf(removeFallback(frozen(newsroomCrew()), "editor", "writer_a"));
    expect(news.agents[0]).toEqual({ id: "editor", name: "Editor" });
    const quiz = specOf(removeFallback(frozen(quizCrew()), "contestant", "quizmaster"));
    expect(quiz.routing!.defaults).toBeUndefined();
    expect(Object.keys(quiz.routing!)).toEqual(["signals", "parallel_groups", "agent_behaviors"]);
    expect(errorOf(removeFallback(quiz, "contestant", "quizmaster"))).toBe("'contestant' does not fall back to 'quizmaster'");
  });
});

describe("edges of the graph", () => {
  const broadcast = (writer: string) =>
    arrow(at.agent("editor"), at.agent(writer), {
      id: `rule:editor:0:agent:${writer}`,
      source: "agent:editor",
      target: `agent:${writer}`,
      kind: "signal",
      signal: "[ASSIGN]",
      behavior: "broadcast",
      rule: { agent: "editor", index: 0 },
    });

  it("tells what each kind of edge is in the crew file", () => {
    expect(edgeToEdit(broadcast("writer_b"))).toEqual({
      kind: "rule",
      agent: "editor",
      index: 0,
      target: { kind: "agent", id: "writer_b" },
    });
    expect(
      edgeToEdit(arrow(at.agent("editor"), at.agent("writer_a"), { id: "fallback:editor:agent:writer_a", source: "agent:editor", target: "agent:writer_a", kind: "fallback" })),
    ).toEqual({ kind: "fallback", from: "editor", to: "writer_a" });
    expect(edgeToEdit(arrow(at.group("g"), at.agent("a"), { id: "member:g:agent:a", source: "group:g", target: "agent:a", kind: "membership" }))).toEqual({
      kind: "membership",
      group: "g",
      agent: "a",
    });
    expect(edgeToEdit(arrow(at.group("g"), at.agent("a"), { id: "next:g:agent:a", source: "group:g", target: "agent:a", kind: "group_next" }))).toEqual({
      kind: "group_next",
      group: "g",
      agent: "a",
    });
    expect(edgeToEdit(arrow(at.agent("a"), at.end, { id: "terminal:a:end", source: "agent:a", target: "end", kind: "terminal" }))).toEqual({
      kind: "terminal",
      agent: "a",
    });
    expect(edgeToEdit(arrow(at.agent("a"), at.wait, { id: "waits:a:wait", source: "agent:a", target: "wait", kind: "waits" }))).toEqual({
      kind: "waits",
      agent: "a",
    });
    expect(edgeToEdit(arrow(at.router, at.agent("a"), { id: "score:router:agent:a", source: "router", target: "agent:a", kind: "score" }))).toBeNull();
  });

  it("deletes one edge of a broadcast by taking its target out of the list", () => {
    const one = specOf(removeEdge(frozen(newsroomCrew()), broadcast("writer_b")));
    expect(one.routing!.signals!.editor[0]).toEqual({ signal: "[ASSIGN]", target: ["writer_a"] });
    const none = specOf(removeEdge(one, broadcast("writer_a")));
    expect(none.routing!.signals!.editor).toEqual([{ signal: "[DONE]", target: "" }]);
  });

  it("deletes a signal edge's rule", () => {
    const toEnd = arrow(at.agent("teacher"), at.end, { id: "rule:teacher:1:end", source: "agent:teacher", target: "end", kind: "signal", rule: { agent: "teacher", index: 1 } });
    expect(specOf(removeEdge(frozen(examCrew()), toEnd)).routing!.signals!.teacher).toEqual([
      { signal: "[QUESTION]", target: "exam_round" },
    ]);
  });

  it("clears the flag behind a 'finishes' or 'waits for you' edge, on the agent and in its behaviours", () => {
    const spec: CrewSpec = {
      entry_point: "a",
      agents: [{ id: "a", is_terminal: true, wait_for_signal: true }],
      routing: { agent_behaviors: { a: { is_terminal: true } } },
    };
    const finished = specOf(removeEdge(frozen(spec), arrow(at.agent("a"), at.end, { id: "terminal:a:end", source: "agent:a", target: "end", kind: "terminal" })));
    expect(finished).toEqual({ entry_point: "a", agents: [{ id: "a", wait_for_signal: true }] });
    const waits = specOf(removeEdge(finished, arrow(at.agent("a"), at.wait, { id: "waits:a:wait", source: "agent:a", target: "wait", kind: "waits" })));
    expect(waits).toEqual({ entry_point: "a", agents: [{ id: "a" }] });
  });

  it("deletes a group's 'then' edge and a membership, and refuses the 'back' edge and strategy edges", () => {
    const spec = frozen(examCrew());
    const then = arrow(at.group("exam_round"), at.agent("teacher"), { id: "next:exam_round:agent:teacher", source: "group:exam_round", target: "agent:teacher", kind: "group_next" });
    const thenGone = specOf(removeEdge(spec, then));
    expect(thenGone.routing!.parallel_groups!.exam_round.next_agent).toBeUndefined();
    expect(errorOf(removeEdge(thenGone, then))).toContain("goes back to the agent that started it");
    const member = arrow(at.group("exam_round"), at.agent("student"), { id: "member:exam_round:agent:student", source: "group:exam_round", target: "agent:student", kind: "membership" });
    expect(specOf(removeEdge(spec, member)).routing!.parallel_groups!.exam_round.agents).toEqual(["reporter"]);
    expect(removeEdge(spec, arrow(at.agent("a"), at.agent("b"), { id: "finalize:a:agent:b", source: "agent:a", target: "agent:b", kind: "finalize" })).ok).toBe(false);
  });
});

describe("re-pointing an arrow", () => {
  const writer = (to: string) =>
    arrow(at.agent("writer_a"), at.agent(to), {
      id: `rule:writer_a:0:agent:${to}`,
      source: "agent:writer_a",
      target: `agent:${to}`,
      kind: "signal",
      signal: "[NEXT]",
      behavior: "route",
      rule: { agent: "writer_a", index: 0 },
    });

  it("says what each arrow can lead to instead", () => {
    expect(repointKind(writer("editor"))).toBe("agent");
    const question = arrow(at.agent("teacher"), at.group("exam_round"), {
      id: "rule:teacher:0:group:exam_round",
      source: "agent:teacher",
      target: "group:exam_round",
      kind: "signal",
      rule: { agent: "teacher", index: 0 },
    });
    expect(repointKind(question)).toBe("group");
    const toEnd = arrow(at.agent("teacher"), at.end, { id: "rule:teacher:1:end", source: "agent:teacher", target: "end", kind: "signal", rule: { agent: "teacher", index: 1 } });
    expect(repointKind(toEnd)).toBeNull();
  });

  it("moves a route's target, keeping its signal and place", () => {
    const next = specOf(repointEdge(frozen(newsroomCrew()), writer("editor"), "writer_b"));
    expect(next.routing!.signals!.writer_a).toEqual([{ signal: "[NEXT]", target: "writer_b" }]);
    expect(errorOf(repointEdge(frozen(newsroomCrew()), writer("editor"), "nobody"))).toBe("There is no agent called 'nobody'");
  });

  it("moves one target of a broadcast", () => {
    const one = arrow(at.agent("editor"), at.agent("writer_b"), {
      id: "rule:editor:0:agent:writer_b",
      source: "agent:editor",
      target: "agent:writer_b",
      kind: "signal",
      signal: "[ASSIGN]",
      behavior: "broadcast",
      rule: { agent: "editor", index: 0 },
    });
    const spec = specOf(addAgent(frozen(newsroomCrew()), { id: "writer_c" }));
    expect(specOf(repointEdge(spec, one, "writer_c")).routing!.signals!.editor[0].target).toEqual(["writer_a", "writer_c"]);
    expect(errorOf(repointEdge(spec, one, "writer_a"))).toBe("'editor' already sends '[ASSIGN]' to 'writer_a'");
  });

  it("moves an 'otherwise' arrow in its place, and a group's 'then'", () => {
    const otherwise = arrow(at.agent("editor"), at.agent("writer_a"), { id: "fallback:editor:agent:writer_a", source: "agent:editor", target: "agent:writer_a", kind: "fallback" });
    expect(specOf(repointEdge(frozen(newsroomCrew()), otherwise, "writer_b")).agents[0].handoff_targets).toEqual(["writer_b"]);
    expect(errorOf(repointEdge(frozen(newsroomCrew()), otherwise, "editor"))).toBe("An agent cannot fall back to itself");
    const quiz = arrow(at.agent("contestant"), at.agent("quizmaster"), { id: "fallback:contestant:agent:quizmaster", source: "agent:contestant", target: "agent:quizmaster", kind: "fallback" });
    const moved = specOf(repointEdge(frozen(quizCrew()), quiz, "scorekeeper"));
    expect(moved.routing!.defaults).toBeUndefined();
    expect(moved.agents.find((a) => a.id === "contestant")?.handoff_targets).toEqual(["scorekeeper"]);
    const then = arrow(at.group("exam_round"), at.agent("teacher"), { id: "next:exam_round:agent:teacher", source: "group:exam_round", target: "agent:teacher", kind: "group_next" });
    expect(specOf(repointEdge(frozen(examCrew()), then, "student")).routing!.parallel_groups!.exam_round.next_agent).toBe("student");
  });
});
