import { describe, expect, it } from "vitest";
import { examCrew } from "../editor/fixtures";
import { examGraph } from "./fixtures";
import { arrowsOf, graphRefs, inSelection, runName } from "./refs";
import { toEditorFlow } from "./editorFlow";

describe("graphRefs", () => {
  it("says what each node is from the engine's view, not from its id", () => {
    const refs = graphRefs(examGraph);
    expect(refs.get("agent:teacher")).toEqual({ kind: "agent", agent: "teacher", group: null });
    expect(refs.get("group:round")).toEqual({ kind: "group", agent: null, group: "round" });
    expect(refs.get("end")).toEqual({ kind: "end", agent: null, group: null });
    expect([...refs.values()].map(runName)).toEqual(["round", "teacher", "student", "reporter", "end"]);
  });

  it("reads an agent's id from the view even when its node id says otherwise", () => {
    // The node id's form is the engine's business; the UI reads `agent`.
    const view = { ...examGraph, nodes: examGraph.nodes.map((n) => (n.id === "agent:teacher" ? { ...n, id: "n1" } : n)) };
    expect(graphRefs(view).get("n1")).toMatchObject({ agent: "teacher" });
  });
});

describe("arrowsOf and the React Flow data", () => {
  it("gives every edge the agents or groups at its two ends", () => {
    const next = arrowsOf(examGraph).find((a) => a.view.kind === "group_next");
    expect(next).toMatchObject({ source: { group: "round" }, target: { agent: "teacher" } });
    const { nodes, edges } = toEditorFlow(examGraph, {}, new Map());
    expect(nodes.find((n) => n.id === "agent:student")?.data).toMatchObject({ agent: "student", group: null });
    expect(nodes.find((n) => n.id === "group:round")?.data).toMatchObject({ agent: null, group: "round" });
    const toEnd = edges.find((e) => e.id === "rule:teacher:1:end")?.data;
    expect(toEnd).toMatchObject({ source: { agent: "teacher" }, target: { kind: "end", agent: null, group: null } });
  });
});

describe("inSelection", () => {
  it("finds the crew's agents and groups among selected node ids, in their order", () => {
    const ids = ["agent:student", "rule:teacher:1:end", "group:exam_round", "agent:ghost", "agent:teacher", "end"];
    expect(inSelection(examCrew(), ids)).toEqual({ agents: ["student", "teacher"], groups: ["exam_round"] });
  });
});
