// For the inspector's tests: a stand-in backend (the boundary the components talk
// to) and a crew opened in the window's editor store, with the engine's verdict
// up to date or not.
import type { Backend } from "../../backend/Backend";
import type { CrewDocument } from "../../bindings/CrewDocument";
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { ModelView } from "../../bindings/ModelView";
import type { ViewEdge } from "../../bindings/ViewEdge";
import { crewDocument } from "../../editor/fixtures";
import { editorStore } from "../../editor/store";

/** The one model of the fake settings: the default, never checked. */
export const fastModel: ModelView = { name: "fast", provider: "openai", model: "gpt-4o-mini", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null, chosen: true };

/** The models Settings lists, as the fake backend answers them (a test may change
 * them, then `resetModels()` so the window asks again). */
export const fakeModels: { list: ModelView[] } = { list: [fastModel] };

/** What the window's backend answers, as far as the inspector asks. */
export function fakeBackend(): { backend: Partial<Backend> } {
  return {
    backend: {
      checkSignalName: async (name: string) =>
        /^\[[^[\]]+\]$/.test(name.trim()) ? null : `invalid signal format '${name.trim()}'`,
      listModels: async () => fakeModels.list,
      agentInstructions: async (_spec: CrewSpec, agent: string) => `When you are done, ${agent}, write [DONE].`,
    },
  };
}

/** Opens `spec` in the window's store with a verdict on it (checked = spec). */
export function open(spec: CrewSpec, document: CrewDocument = crewDocument(spec.name ?? "crew")): void {
  editorStore.getState().load({ path: null, layout: "file", spec, document, positions: {} });
}

/** A signal arrow as the engine draws it. */
export function signalEdge(agent: string, index: number, target: string, signal: string, behavior: ViewEdge["behavior"]): ViewEdge {
  return {
    id: `rule:${agent}:${index}:${target}`,
    source: `agent:${agent}`,
    target,
    kind: "signal",
    label: signal,
    signal,
    behavior,
    description: null,
    rule: { agent, index },
  };
}

/** The exam crew's verdict with its nodes and arrows (no problems). */
export function examDocument(): CrewDocument {
  const node = (id: string, kind: "agent" | "group" | "end", label: string) => ({
    id,
    kind,
    label,
    agent: kind === "agent" ? id.slice("agent:".length) : null,
    role: null,
    model: null,
    description: null,
    tags: [],
    parent: null,
    entry: id === "agent:teacher",
    terminal: false,
    waits: false,
    group: kind === "group" ? { id: label, members: [], timeout_ms: 30000, wait_for_all: true, next_agent: null } : null,
  });
  return {
    ...crewDocument("Fractions exam"),
    graph: {
      nodes: [
        node("group:exam_round", "group", "exam_round"),
        node("agent:teacher", "agent", "Teacher"),
        node("agent:student", "agent", "Student"),
        node("agent:reporter", "agent", "Reporter"),
        node("end", "end", "End"),
      ],
      edges: [
        signalEdge("teacher", 0, "group:exam_round", "[QUESTION]", "parallel"),
        signalEdge("teacher", 1, "end", "[END_EXAM]", "terminate"),
        {
          id: "next:exam_round:teacher",
          source: "group:exam_round",
          target: "agent:teacher",
          kind: "group_next",
          label: "then",
          signal: null,
          behavior: null,
          description: null,
          rule: null,
        },
      ],
    },
  };
}
