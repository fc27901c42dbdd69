import { describe, expect, it } from "vitest";
import type { CrewSpec } from "../bindings/CrewSpec";
import { copyAgents, pasteAgents } from "./clipboard";
import { examCrew, frozen, newsroomCrew, quizCrew } from "./fixtures";

describe("copyAgents", () => {
  it("keeps only the edges among the copied agents (and those to End or Wait)", () => {
    const payload = copyAgents(frozen(newsroomCrew()), ["editor", "writer_a"]);
    expect(payload).toEqual({
      agents: [
        { id: "editor", name: "Editor", handoff_targets: ["writer_a"] },
        { id: "writer_a", name: "Writer A", handoff_targets: ["editor"] },
      ],
      rules: {
        editor: [
          { signal: "[ASSIGN]", target: ["writer_a"] },
          { signal: "[DONE]", target: "" },
        ],
        writer_a: [{ signal: "[NEXT]", target: "editor" }],
      },
      signals: [
        { name: "[ASSIGN]", behavior: "broadcast" },
        { name: "[DONE]", behavior: "terminate", description: "The task is complete" },
        { name: "[NEXT]", behavior: "route", description: "Hand over to the next agent" },
      ],
    });
  });

  it("leaves out rules to agents and groups not copied, and folds behaviours into the agent", () => {
    const spec = quizCrew();
    spec.routing!.agent_behaviors = { contestant: { wait_for_signal: true } };
    const payload = copyAgents(frozen(spec), ["contestant"]);
    expect(payload).toEqual({ agents: [{ id: "contestant", name: "Contestant", wait_for_signal: true }], rules: {}, signals: [] });
  });
});

describe("pasteAgents", () => {
  it("pastes under fresh ids, with the rules rewritten to them", () => {
    const spec = frozen(newsroomCrew());
    const result = pasteAgents(spec, copyAgents(spec, ["editor", "writer_a"]));
    expect(result.ok && result.ids).toEqual({ editor: "editor_2", writer_a: "writer_a_2" });
    const expected = newsroomCrew();
    expected.agents.push(
      { id: "editor_2", name: "Editor 2", handoff_targets: ["writer_a_2"] },
      { id: "writer_a_2", name: "Writer A 2", handoff_targets: ["editor_2"] },
    );
    expected.routing!.signals!.editor_2 = [
      { signal: "[ASSIGN]", target: ["writer_a_2"] },
      { signal: "[DONE]", target: "" },
    ];
    expected.routing!.signals!.writer_a_2 = [{ signal: "[NEXT]", target: "editor_2" }];
    expect(result.ok && result.spec).toEqual(expected);
  });

  it("registers missing signals in a strict crew, and none in an implicit one", () => {
    const payload = copyAgents(newsroomCrew(), ["editor", "writer_a"]);
    const strict: CrewSpec = { name: "Empty", agents: [], signals: [] };
    const pasted = pasteAgents(frozen(strict), payload);
    expect(pasted.ok && pasted.spec.signals).toEqual([{ name: "[ASSIGN]", behavior: "broadcast" }]);
    // A crew without an entry point starts at the first pasted agent, with the original ids.
    expect(pasted.ok && pasted.spec.entry_point).toBe("editor");
    const implicit = pasteAgents(frozen({ name: "Empty", agents: [] }), payload);
    expect(implicit.ok && implicit.spec.signals).toBeUndefined();
  });

  it("pastes into the exam: the teacher copy keeps only its end rule", () => {
    const spec = frozen(examCrew());
    const result = pasteAgents(spec, copyAgents(spec, ["teacher"]));
    expect(result.ok && result.spec.routing!.signals!.teacher_2).toEqual([{ signal: "[END_EXAM]", target: "" }]);
    expect(result.ok && result.spec.signals).toEqual(examCrew().signals);
  });

  it("refuses an empty clipboard", () => {
    expect(pasteAgents(examCrew(), { agents: [], rules: {}, signals: [] })).toEqual({ ok: false, error: "There is nothing to paste" });
  });
});
