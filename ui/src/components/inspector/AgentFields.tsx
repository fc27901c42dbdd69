// Every field of an agent (DESIGN.md §2) in plain words, one line of help under
// each. The same fields serve a new agent (a draft, `live`) and an agent of the
// crew (each field applied as it is left); `AgentForm` supplies what each does.
import { useState } from "react";
import type { AgentSpec } from "../../bindings/AgentSpec";
import type { ServerSpec } from "../../bindings/ServerSpec";
import type { ToolPolicy } from "../../bindings/ToolPolicy";
import { AgentInstructions } from "./AgentInstructions";
import { CheckField, ChipsField, ChoicesField, type Commit, TextField } from "./fields";
import { ModelPicker } from "./ModelPicker";
import { ToolPicker } from "./ToolPicker";

export type Flag = "is_terminal" | "wait_for_signal";
export type TextKey = "name" | "role" | "description" | "objective" | "backstory" | "system_prompt" | "model";
export type ListKey = "tags" | "tools";

/** What the fields show and what changing each one does. */
export type AgentFieldsApi = {
  /** A draft (every keystroke kept) rather than an agent of the crew. */
  live: boolean;
  agent: AgentSpec;
  /** The temperature as typed. */
  temperature: string;
  /** The longest reply (max_tokens) as typed. */
  maxTokens: string;
  /** Who the agent hands off to when no signal matches. */
  handoffs: string[];
  flags: Record<Flag, boolean>;
  /** The other agents, for the hand-off choice. */
  others: { value: string; label: string }[];
  /** The crew routes by signals (strategy `signals`): what an agent does when its
   * reply has none applies. Under scoring, a router model or a gatekeeper it does
   * not, and those fields are not offered (unless set, so they can be cleared). */
  bySignals: boolean;
  /** Why the id was refused when the draft was added. */
  idError?: string | null;
  setText: (key: TextKey, value: string) => string | null;
  setList: (key: ListKey, value: string[]) => string | null;
  setId: Commit<string>;
  setTemperature: Commit<string>;
  setMaxTokens: Commit<string>;
  setHandoff: (to: string, on: boolean) => string | null;
  /** The agent's rule for `tool` (null: the usual one). */
  setPolicy: (tool: string, policy: ToolPolicy | null) => string | null;
  /** The crew's own tool servers (its file's `tools.servers`), for the picker. */
  crewServers?: Record<string, ServerSpec>;
  setFlag: (flag: Flag, on: boolean) => string | null;
};

/** Why a typed temperature cannot be used, or null (empty: the model's default). */
export function temperatureProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return "The temperature is a number from 0 to 2";
  if (value < 0 || value > 2) return "The temperature goes from 0 (steady) to 2 (most varied)";
  return null;
}

/** A typed temperature as stored: undefined for the default. */
export function parseTemperature(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text.trim());
}

/** The most a crew file's max_tokens holds (a 32-bit count). */
const MOST_TOKENS = 4_294_967_295;

/** Why a typed longest reply cannot be used, or null (empty: the model's own setting). */
export function maxTokensProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed);
  if (!Number.isInteger(value) || value < 1) return "The longest reply is a whole number of tokens, 1 or more";
  if (value > MOST_TOKENS) return "That is more tokens than any model writes";
  return null;
}

/** A typed longest reply as stored: undefined for the model's own setting. */
export function parseMaxTokens(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text.trim());
}

export function AgentFields({ api }: { api: AgentFieldsApi }) {
  const { live, agent, setText, setList } = api;
  const text = (key: TextKey) => agent[key] ?? "";
  // The picker asks the tool servers only once it is opened.
  const [picking, setPicking] = useState(false);
  const about = (
    <>
      <TextField
        label="Description"
        help="A few sentences about the agent; the scoring router reads them."
        value={text("description")}
        live={live}
        multiline
        rows={2}
        onCommit={(value) => setText("description", value)}
      />
      <TextField
        label="Goal"
        help="What this agent is trying to achieve."
        value={text("objective")}
        live={live}
        multiline
        rows={2}
        onCommit={(value) => setText("objective", value)}
      />
      {agent.backstory !== undefined && (
        <TextField
          label="Backstory"
          help="Where the agent comes from (a crew folder's agents have one)."
          value={text("backstory")}
          live={live}
          multiline
          rows={2}
          onCommit={(value) => setText("backstory", value)}
        />
      )}
      <ChipsField
        label="Tags"
        help="Words about what the agent knows; the scoring router matches them."
        values={agent.tags ?? []}
        onChange={(value) => setList("tags", value)}
      />
    </>
  );
  const tuning = (
    <>
      <TextField
        label="Temperature"
        help="0 keeps replies steady, 2 makes them most varied. Empty: the model's default."
        value={api.temperature}
        live={live}
        type="number"
        min={0}
        max={2}
        step={0.1}
        placeholder="default"
        validate={temperatureProblem}
        onCommit={api.setTemperature}
      />
      <TextField
        label="Longest reply"
        help="The most one reply of this agent may take, in tokens (a token is about three quarters of a word). Empty: the model's own setting."
        value={api.maxTokens}
        live={live}
        type="number"
        min={1}
        step={1}
        placeholder="the model's"
        validate={maxTokensProblem}
        onCommit={api.setMaxTokens}
      />
      <ChipsField
        label="Tools"
        help="Tools this agent may use, by name: pick them below, or type one."
        values={agent.tools ?? []}
        onChange={(value) => setList("tools", value)}
      />
      <details className="ins-more" onToggle={(e) => setPicking((e.target as HTMLDetailsElement).open)}>
        <summary>Choose from the tools there are</summary>
        {picking && (
          <ToolPicker
            chosen={agent.tools ?? []}
            policies={agent.tool_policy ?? {}}
            crewServers={api.crewServers}
            onToggle={(tool, on) => {
              const now = agent.tools ?? [];
              setList("tools", on ? [...now.filter((t) => t !== tool), tool] : now.filter((t) => t !== tool));
            }}
            onPolicy={api.setPolicy}
          />
        )}
      </details>
      {(api.bySignals || api.handoffs.length > 0) && (
        <ChoicesField
          label="If no signal matches, hand off to"
          help="Who takes over when a reply has none of this agent's signals (a dashed arrow)."
          choices={api.others}
          chosen={api.handoffs}
          onToggle={api.setHandoff}
          empty="There are no other agents yet."
        />
      )}
      <CheckField
        label="Finishes the run when it is done"
        help="When its reply has no signal, the run ends with that reply."
        checked={api.flags.is_terminal}
        onChange={(on) => api.setFlag("is_terminal", on)}
      />
      {(api.bySignals || api.flags.wait_for_signal) && (
        <CheckField
          label="Waits for you when no signal matches"
          help="When its reply has no signal, the crew pauses until you answer."
          checked={api.flags.wait_for_signal}
          onChange={(on) => api.setFlag("wait_for_signal", on)}
        />
      )}
    </>
  );
  return (
    <>
      <TextField
        label="Name"
        help="What the crew calls this agent on the canvas and in the transcript."
        value={text("name")}
        live={live}
        autoFocus={live}
        onCommit={(value) => setText("name", value)}
      />
      <TextField
        label="Id"
        help="Short name used in routes: letters, digits, _, - and . (no spaces)."
        value={agent.id ?? ""}
        live={live}
        mono
        error={api.idError}
        onCommit={api.setId}
      />
      <TextField
        label="Role"
        help="One line under the name: what this agent does."
        value={text("role")}
        live={live}
        onCommit={(value) => setText("role", value)}
      />
      {!live && about}
      <TextField
        label="Instructions (system prompt)"
        help={
          live
            ? "What the agent is told before every turn: who it is and how it works."
            : "What the agent is told before every turn. Ctrl+Enter or leaving the box applies it."
        }
        value={text("system_prompt")}
        live={live}
        multiline
        rows={live ? 4 : 8}
        onCommit={(value) => setText("system_prompt", value)}
      />
      {!live && agent.id && <AgentInstructions agentId={agent.id} />}
      <ModelPicker value={text("model")} live={live} onChange={(value) => setText("model", value)} />
      {live ? (
        <details className="ins-more">
          <summary>{api.bySignals ? "More: description, tags, temperature, tools, hand-offs" : "More: description, tags, temperature, tools"}</summary>
          {about}
          {tuning}
        </details>
      ) : (
        tuning
      )}
    </>
  );
}
