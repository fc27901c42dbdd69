import { describe, expect, it } from "vitest";
import type { CrewDocument } from "../bindings/CrewDocument";
import { examGraph } from "../graph/fixtures";
import { agentView, crewDocument, examCrew } from "./fixtures";
import { runtimePart, samePart, unknownAgents, withRuntime } from "./runtime";
import { createEditorStore } from "./store";

const agent = (id: string, name: string, runtime = false) => agentView(id, name, { runtime });

/** The exam as the editor checks it (no runtime agents). */
function edited(): CrewDocument {
  return { ...crewDocument("exam"), agents: [agent("teacher", "Teacher"), agent("student", "Student"), agent("reporter", "Reporter")], graph: examGraph };
}

/** The exam as it runs: with a gardener added while the app runs, who falls back to the teacher. */
function running(): CrewDocument {
  const doc = edited();
  return {
    ...doc,
    agents: [...doc.agents, agent("gardener", "Gardener", true)],
    graph: {
      nodes: [...doc.graph.nodes, { ...examGraph.nodes[1], id: "agent:gardener", label: "Gardener", agent: "gardener", entry: false }],
      edges: [
        ...doc.graph.edges,
        { id: "fallback:gardener:agent:teacher", source: "agent:gardener", target: "agent:teacher", kind: "fallback", label: "otherwise", signal: null, behavior: null, description: null, rule: null },
      ],
    },
  };
}

describe("runtime agents", () => {
  it("takes the runtime agents of the crew as it runs, with their cards and arrows", () => {
    const part = runtimePart(running());
    expect(part?.agents.map((a) => a.id)).toEqual(["gardener"]);
    expect(part?.nodes.map((n) => n.id)).toEqual(["agent:gardener"]);
    expect(part?.edges.map((e) => e.id)).toEqual(["fallback:gardener:agent:teacher"]);
    expect(runtimePart(edited())).toBeNull();
  });

  it("adds them to the edited crew's verdict, unless the crew has an agent of that id itself", () => {
    const part = runtimePart(running());
    const drawn = withRuntime(edited(), part);
    expect(drawn.graph.nodes.map((n) => n.id)).toContain("agent:gardener");
    expect(drawn.graph.edges.map((e) => e.id)).toContain("fallback:gardener:agent:teacher");
    expect(drawn.agents.find((a) => a.id === "gardener")?.runtime).toBe(true);
    // The person added a gardener of their own meanwhile: theirs is the one drawn.
    const own = { ...edited(), agents: [...edited().agents, agent("gardener", "My gardener")] };
    expect(withRuntime(own, part).agents.filter((a) => a.id === "gardener").map((a) => a.name)).toEqual(["My gardener"]);
    // An arrow to an agent the edited crew no longer has is not drawn.
    const noTeacher = { ...edited(), graph: { ...examGraph, nodes: examGraph.nodes.filter((n) => n.id !== "agent:teacher") } };
    expect(withRuntime(noTeacher, part).graph.edges.map((e) => e.id)).not.toContain("fallback:gardener:agent:teacher");
  });

  it("says where a reply goes when the only other agent is a runtime one", () => {
    // A crew of one lead: alone, its reply without a signal goes nowhere; with a
    // gardener added while the app runs, it goes to the gardener.
    const noWayOut = {
      diagnostic: {
        severity: "warning" as const,
        problem: { code: "no_way_out" as const, agent: "lead" },
        message: "agent 'lead' has no way out (no signal, no handoff target, not terminal)",
        plain: "lead has no way to finish or hand off.",
        location: null,
        subject: { kind: "agent" as const, agent: "lead" },
      },
      targets: ["agent:lead"],
    };
    const alone: CrewDocument = { ...crewDocument("garden", [noWayOut]), agents: [agent("lead", "Lead")], graph: { nodes: [], edges: [] } };
    const runs: CrewDocument = {
      ...alone,
      agents: [{ ...agent("lead", "Lead"), automatic_fallback: "gardener" }, agent("gardener", "Gardener", true)],
      graph: { nodes: [{ ...examGraph.nodes[1], id: "agent:gardener", label: "Gardener", agent: "gardener", entry: false }], edges: [] },
    };
    const drawn = withRuntime(alone, runtimePart(runs));
    expect(drawn.agents.find((a) => a.id === "lead")?.automatic_fallback).toBe("gardener");
    // …so it is not warned about as having no way out.
    expect(drawn.problems).toEqual([]);
  });

  it("tells which agents named by a run the drawn crew does not have", () => {
    expect(unknownAgents(edited(), ["teacher", "gardener", "gardener"])).toEqual(["gardener"]);
    expect(unknownAgents(withRuntime(edited(), runtimePart(running())), ["gardener"])).toEqual([]);
  });

  it("sees two looks at the same runtime agents as the same", () => {
    expect(samePart(runtimePart(running()), runtimePart(running()))).toBe(true);
    expect(samePart(runtimePart(running()), null)).toBe(false);
  });

  it("keeps them drawn through the editor's checks, and forgets them with another crew", async () => {
    const store = createEditorStore();
    store.getState().setChecker(async () => edited());
    store.getState().load({ path: "/crews/exam.yaml", layout: "file", spec: examCrew(), document: edited(), positions: {} });
    store.getState().setRuntime(runtimePart(running()));
    expect(store.getState().document?.graph.nodes.map((n) => n.id)).toContain("agent:gardener");
    // An edit is checked again: the new verdict has no gardener of its own, the drawing does.
    store.getState().edit("rename", (spec) => ({ ok: true, spec: { ...spec, name: "Exam 2" } }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState().checked?.name).toBe("Exam 2");
    expect(store.getState().document?.agents.map((a) => a.id)).toContain("gardener");
    store.getState().load({ path: "/crews/other.yaml", layout: "file", spec: examCrew(), document: edited(), positions: {} });
    expect(store.getState().runtime).toBeNull();
    expect(store.getState().document?.agents.map((a) => a.id)).not.toContain("gardener");
  });
});
