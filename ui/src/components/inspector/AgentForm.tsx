// The agent form: a new agent as a draft added with one button, or an agent of
// the crew whose fields are applied one at a time as they are left (one undo
// step each, "Change Teacher's role"), with its problems on top. A refused edit
// shows its words under the field and changes nothing.
import { type FormEvent, useState } from "react";
import type { AgentSpec } from "../../bindings/AgentSpec";
import type { CrewSpec } from "../../bindings/CrewSpec";
import { addAgent, newAgentId, removeAgents, renameAgent, uniqueAgentId, updateAgent } from "../../editor/agents";
import { addFallback, clearFlag, removeFallback } from "../../editor/edges";
import type { Position } from "../../editor/history";
import { routingOf } from "../../editor/routing";
import { editorStore, problemsFor, useEditor } from "../../editor/store";
import { useModelWarnings } from "../../models/useModelWarnings";
import { apply, sameList, select } from "./apply";
import {
  AgentFields,
  type AgentFieldsApi,
  type Flag,
  type ListKey,
  type TextKey,
  maxTokensProblem,
  parseMaxTokens,
  parseTemperature,
  temperatureProblem,
} from "./AgentFields";
import { PanelTitle, ProblemList } from "./fields";
import { agentNodeId } from "../../graph/refs";

const FIELD_WORDS: Record<TextKey | ListKey, string> = {
  name: "name",
  role: "role",
  description: "description",
  objective: "goal",
  backstory: "backstory",
  system_prompt: "instructions",
  model: "model",
  tags: "tags",
  tools: "tools",
};

type AgentFormProps = {
  /** The agent to edit; null: a new agent. */
  agentId: string | null;
  /** Called when a new agent was added (or the person cancels). */
  onClose?: () => void;
  /** Where a new agent's card goes on the canvas. */
  position?: Position;
};

export function AgentForm({ agentId, onClose, position }: AgentFormProps) {
  const spec = useEditor((s) => s.spec);
  if (!spec) return <p className="ins-muted">Open a crew first.</p>;
  if (agentId === null) return <NewAgent spec={spec} onClose={onClose} position={position} />;
  return <ExistingAgent spec={spec} agentId={agentId} />;
}

/** An agent's tool rules with `tool`'s set (null: its rule gone; none left: no rules). */
export function withPolicy(rules: Record<string, string>, tool: string, policy: string | null): Record<string, string> | undefined {
  const next = { ...rules };
  if (policy === null) delete next[tool];
  else next[tool] = policy;
  return Object.keys(next).length > 0 ? next : undefined;
}

/** The crew routes by the signals in replies (the default strategy). */
const bySignals = (spec: CrewSpec) => (spec.routing?.strategy ?? "signals") === "signals";

function othersOf(spec: CrewSpec, id: string | null) {
  return spec.agents.flatMap(({ id: other, name }) =>
    other && other !== id ? [{ value: other, label: name && name !== other ? `${name} (${other})` : other }] : [],
  );
}

function ExistingAgent({ spec, agentId }: { spec: CrewSpec; agentId: string }) {
  const document = useEditor((s) => s.document);
  const warnings = useModelWarnings();
  const agent = spec.agents.find((a) => a.id === agentId);
  if (!agent) return <p className="ins-muted">This agent is no longer in the crew.</p>;
  const who = agent.name || agentId;
  const change = (words: string, fn: (spec: CrewSpec) => ReturnType<typeof updateAgent>) =>
    apply(`Change ${who}'s ${words}`, fn);
  const routing = routingOf(spec);
  const behavior = routing.agent_behaviors && Object.hasOwn(routing.agent_behaviors, agentId) ? routing.agent_behaviors[agentId] : undefined;
  const fallback = routing.defaults && Object.hasOwn(routing.defaults, agentId) ? routing.defaults[agentId] : undefined;
  const handoffs = [...(agent.handoff_targets ?? [])];
  if (fallback && !handoffs.includes(fallback)) handoffs.push(fallback);

  const api: AgentFieldsApi = {
    live: false,
    agent,
    temperature: agent.temperature === undefined ? "" : String(agent.temperature),
    maxTokens: agent.max_tokens === undefined ? "" : String(agent.max_tokens),
    handoffs,
    flags: {
      is_terminal: Boolean(agent.is_terminal || behavior?.is_terminal),
      wait_for_signal: Boolean(agent.wait_for_signal || behavior?.wait_for_signal),
    },
    others: othersOf(spec, agentId),
    bySignals: bySignals(spec),
    setText: (key, value) =>
      value === (agent[key] ?? "") ? null : change(FIELD_WORDS[key], (s) => updateAgent(s, agentId, { [key]: value })),
    setList: (key, value) =>
      sameList(value, agent[key] ?? []) ? null : change(FIELD_WORDS[key], (s) => updateAgent(s, agentId, { [key]: value })),
    setPolicy: (tool, policy) => {
      const now = agent.tool_policy ?? {};
      if ((now[tool] ?? null) === policy) return null;
      return change("tool rules", (s) => updateAgent(s, agentId, { tool_policy: withPolicy(now, tool, policy) }));
    },
    crewServers: spec.tools?.servers,
    setId: (id) => (id.trim() === agentId ? null : apply(`Rename ${who}`, (s) => renameAgent(s, agentId, id))),
    setTemperature: (text) => {
      const problem = temperatureProblem(text);
      if (problem) return problem;
      const temperature = parseTemperature(text);
      if (temperature === agent.temperature) return null;
      return change("temperature", (s) => updateAgent(s, agentId, { temperature }));
    },
    setMaxTokens: (text) => {
      const problem = maxTokensProblem(text);
      if (problem) return problem;
      const max_tokens = parseMaxTokens(text);
      if (max_tokens === agent.max_tokens) return null;
      return change("longest reply", (s) => updateAgent(s, agentId, { max_tokens }));
    },
    setHandoff: (to, on) =>
      change("fallback agents", (s) => (on ? addFallback(s, agentId, to) : removeFallback(s, agentId, to))),
    setFlag: (flag: Flag, on) =>
      change(flag === "is_terminal" ? "finish setting" : "waiting setting", (s) =>
        on ? updateAgent(s, agentId, { [flag]: true }) : clearFlag(s, agentId, flag),
      ),
  };

  const remove = () => {
    if (apply(`Delete ${who}`, (s) => removeAgents(s, [agentId])) === null) select([]);
  };

  return (
    <section className="ins-panel" aria-label={`Agent ${who}`}>
      <PanelTitle kind={spec.entry_point === agentId ? "Agent · runs start here" : "Agent"} title={who} />
      <ProblemList problems={[...problemsFor(document, agentNodeId(agentId)), ...warnings.filter((w) => w.targets.includes(agentNodeId(agentId)))]} />
      <AgentFields api={api} />
      <div className="ins-actions">
        <button type="button" className="ins-button danger" onClick={remove}>
          Delete this agent
        </button>
      </div>
    </section>
  );
}

type NewAgentProps = { spec: CrewSpec; onClose?: () => void; position?: Position };

function NewAgent({ spec, onClose, position }: NewAgentProps) {
  const [draft, setDraft] = useState<AgentSpec>({});
  const [typedId, setTypedId] = useState<string | null>(null);
  const [temperature, setTemperature] = useState("");
  const [maxTokens, setMaxTokens] = useState("");
  const [handoffs, setHandoffs] = useState<string[]>([]);
  const [flags, setFlags] = useState<Record<Flag, boolean>>({ is_terminal: false, wait_for_signal: false });
  // Why adding was refused, and the id it was refused for: once the id is another
  // (typed, or following the name), the refusal is old news and goes.
  const [refused, setRefused] = useState<{ id: string; error: string } | null>(null);
  const name = draft.name?.trim() ?? "";
  // The id follows the name until the person types one.
  const id = typedId ?? (name === "" ? "" : uniqueAgentId(spec, newAgentId(name)));
  const idError = refused && refused.id === id ? refused.error : null;

  const set = (patch: AgentSpec) => {
    setDraft((d) => ({ ...d, ...patch }));
    return null;
  };
  const api: AgentFieldsApi = {
    live: true,
    agent: { ...draft, id },
    temperature,
    maxTokens,
    handoffs,
    flags,
    others: othersOf(spec, null),
    bySignals: bySignals(spec),
    idError,
    setText: (key, value) => set({ [key]: value }),
    setList: (key, value) => set({ [key]: value }),
    setPolicy: (tool, policy) => set({ tool_policy: withPolicy(draft.tool_policy ?? {}, tool, policy) }),
    crewServers: spec.tools?.servers,
    setId: (value) => {
      setTypedId(value);
      return null;
    },
    setTemperature: (text) => {
      setTemperature(text);
      return null;
    },
    setMaxTokens: (text) => {
      setMaxTokens(text);
      return null;
    },
    setHandoff: (to, on) => {
      setHandoffs((list) => (on ? [...list.filter((t) => t !== to), to] : list.filter((t) => t !== to)));
      return null;
    },
    setFlag: (flag, on) => {
      setFlags((f) => ({ ...f, [flag]: on }));
      return null;
    },
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (temperatureProblem(temperature) || maxTokensProblem(maxTokens)) return;
    const newId = id.trim();
    const agent: AgentSpec = { ...draft, id: newId, temperature: parseTemperature(temperature), max_tokens: parseMaxTokens(maxTokens), handoff_targets: handoffs };
    if (flags.is_terminal) agent.is_terminal = true;
    if (flags.wait_for_signal) agent.wait_for_signal = true;
    const nodeId = agentNodeId(newId);
    const result = editorStore
      .getState()
      .edit(`Add ${name || newId || "an agent"}`, (s) => addAgent(s, agent), position ? { positions: { [nodeId]: position } } : {});
    if (!result.ok) {
      setRefused({ id, error: result.error });
      return;
    }
    select([nodeId]);
    onClose?.();
  };

  return (
    <form className="ins-panel" aria-label="New agent" onSubmit={submit} noValidate>
      <AgentFields api={api} />
      <div className="ins-actions">
        <button type="submit" className="ins-button primary">
          Add agent
        </button>
        {onClose && (
          <button type="button" className="ins-button" onClick={onClose}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
