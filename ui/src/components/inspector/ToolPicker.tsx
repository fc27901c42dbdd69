// The agent form's tool picker: every tool the agent could use — the built-in ones
// and those of every tool server the crew can use (its own and Settings'), grouped
// by server, each with what it does — to tick, searchable, and beside each ticked
// tool whether it is called at once, asks the person first, or is not allowed
// (the agent's `tool_policy`). A server that cannot start says why.
import { useEffect, useId, useMemo, useState } from "react";
import { backend } from "../../backend";
import { useEditor } from "../../editor/store";
import type { ServerSpec } from "../../bindings/ServerSpec";
import type { ServerTools } from "../../bindings/ServerTools";
import type { ToolInfo } from "../../bindings/ToolInfo";
import type { ToolPolicy } from "../../bindings/ToolPolicy";

/** The tools every crew has. */
export const BUILT_IN: ServerTools = {
  server: "built in",
  origin: "built_in",
  error: null,
  tools: [
    { name: "current_time", description: "The date and time now.", read_only: true },
    { name: "calculator", description: "Works out arithmetic, such as (1/2 + 1/4) * 3.", read_only: true },
    { name: "http_get", description: "Reads a web page, from the sites the crew allows.", read_only: true },
  ],
};

const POLICY_WORDS: Record<ToolPolicy, string> = { allow: "Allowed", ask: "Asks you first", deny: "Not allowed" };

/** What a tool does without a rule: built-in and read-only tools are allowed; the rest ask. */
export function defaultPolicy(tool: ToolInfo, builtIn: boolean): ToolPolicy {
  return builtIn || tool.read_only ? "allow" : "ask";
}

/** The servers whose tools match `search` (in a tool's name or description), and their matching tools. */
export function matching(groups: ServerTools[], search: string): ServerTools[] {
  const words = search.trim().toLowerCase();
  if (!words) return groups;
  return groups
    .map((group) => ({
      ...group,
      tools: group.tools.filter((t) => `${t.name} ${t.description}`.toLowerCase().includes(words) || group.server.toLowerCase().includes(words)),
    }))
    .filter((group) => group.tools.length > 0);
}

type Props = {
  /** What the agent lists now. */
  chosen: string[];
  /** The agent's own tool rules. */
  policies: Record<string, string>;
  /** The crew's own servers (its file's `tools.servers`). */
  crewServers?: Record<string, ServerSpec>;
  onToggle: (tool: string, on: boolean) => void;
  onPolicy: (tool: string, policy: ToolPolicy | null) => void;
};

export function ToolPicker({ chosen, policies, crewServers, onToggle, onPolicy }: Props) {
  const id = useId();
  const [groups, setGroups] = useState<ServerTools[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const servers = JSON.stringify(crewServers ?? {});
  // The crew's programs start in its folder, as in a run.
  const path = useEditor((s) => s.path);
  useEffect(() => {
    let current = true;
    setGroups(null);
    backend.crewTools(JSON.parse(servers), path ?? undefined).then(
      (found) => current && setGroups(found),
      (e) => current && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      current = false;
    };
  }, [servers, path]);
  const shown = useMemo(() => matching([BUILT_IN, ...(groups ?? [])], search), [groups, search]);

  return (
    <div className="ins-tools" role="group" aria-labelledby={`${id}-title`}>
      <span className="ins-label" id={`${id}-title`}>
        Choose tools
      </span>
      <input className="ins-input" type="search" placeholder="Search the tools" aria-label="Search the tools" value={search} onChange={(e) => setSearch(e.target.value)} />
      {groups === null && !error && <p className="ins-help">Asking the tool servers for their tools…</p>}
      {error && <p className="ins-error">{error}</p>}
      {shown.map((group) => (
        <fieldset key={group.server} className="ins-tool-group">
          <legend>
            {group.origin === "built_in" ? "Built in" : group.server}
            {group.origin === "crew" && <span className="ins-muted"> · this crew's server</span>}
            {group.origin === "app" && <span className="ins-muted"> · from Settings</span>}
          </legend>
          {group.error && <p className="ins-error">{group.error}</p>}
          {group.tools.map((tool) => {
            const on = chosen.includes(tool.name);
            const builtIn = group.origin === "built_in";
            const rule = policies[tool.name] as ToolPolicy | undefined;
            const fallback = defaultPolicy(tool, builtIn);
            const short = builtIn ? tool.name : tool.name.slice(group.server.length + 1);
            return (
              <div key={tool.name} className={`ins-tool${on ? " on" : ""}`}>
                <label className="ins-tool-name">
                  <input type="checkbox" checked={on} onChange={(e) => onToggle(tool.name, e.target.checked)} /> {short}
                </label>
                {tool.description && (
                  <span className="ins-help ins-tool-about" title={tool.description}>
                    {tool.description}
                  </span>
                )}
                {on && (
                  <select
                    className="ins-input ins-tool-policy"
                    aria-label={`When ${short} is called`}
                    value={rule ?? ""}
                    onChange={(e) => onPolicy(tool.name, e.target.value === "" ? null : (e.target.value as ToolPolicy))}
                  >
                    <option value="">{`${POLICY_WORDS[fallback]} (the usual${fallback === "allow" && !builtIn ? ": it only reads" : ""})`}</option>
                    {(["allow", "ask", "deny"] as ToolPolicy[]).map((policy) => (
                      <option key={policy} value={policy}>
                        {POLICY_WORDS[policy]}
                      </option>
                    ))}
                  </select>
                )}
              </div>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}
