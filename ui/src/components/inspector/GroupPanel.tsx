// A parallel group: its name, who works side by side in it (remove, add), how
// long they get, whether the run waits for every one of them, where the work
// goes afterwards, its description, and deleting it.
import { useId, useState } from "react";
import type { CrewSpec } from "../../bindings/CrewSpec";
import { addMember, removeGroup, removeMember, renameGroup, updateGroup } from "../../editor/groups";
import { groupsOf } from "../../editor/routing";
import { problemsFor, useEditor } from "../../editor/store";
import { apply, select } from "./apply";
import { CheckField, PanelTitle, ProblemList, SelectField, TextField, describedBy } from "./fields";
import { groupNodeId } from "../../graph/refs";

/** Why a typed time limit cannot be used, or null (empty: the default, 30 s).
 * Accepts what the engine reads: seconds (`45`), or `30s`, `2m`, `1m 30s`. */
export function timeoutProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const units = "ms|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours";
  const seconds = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : null;
  const spelled = new RegExp(`^(\\d+\\s*(${units})\\s*)+$`).test(trimmed);
  if (seconds === null && !spelled) return "Write a time like 30s, 2m or 1m 30s";
  if (seconds === 0 || (spelled && !/[1-9]/.test(trimmed))) return "The time limit must be more than zero";
  return null;
}

export function GroupPanel({ groupId }: { groupId: string }) {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const group = spec ? groupsOf(spec)[groupId] : undefined;
  if (!spec || !group || !Object.hasOwn(groupsOf(spec), groupId)) {
    return <p className="ins-muted">This group is no longer in the crew.</p>;
  }
  const change = (words: string, fn: (s: CrewSpec) => ReturnType<typeof updateGroup>) =>
    apply(`Change ${groupId}'s ${words}`, fn);
  const members = group.agents ?? [];
  const agentName = (id: string) => spec.agents.find((a) => a.id === id)?.name || id;
  const timeout = group.timeout ?? (group.timeout_seconds ? `${group.timeout_seconds}s` : "");
  const agents = spec.agents.flatMap(({ id }) => (id ? [id] : []));

  const remove = () => {
    if (apply(`Delete the group ${groupId}`, (s) => removeGroup(s, groupId)) === null) select([]);
  };

  return (
    <section className="ins-panel" aria-label={`Group ${groupId}`}>
      <PanelTitle kind="Parallel group" title={groupId} />
      <ProblemList problems={problemsFor(document, groupNodeId(groupId))} />
      <TextField
        label="Name"
        help="Short name used in routes: letters, digits, _, - and . (no spaces)."
        value={groupId}
        mono
        onCommit={(name) => (name.trim() === groupId ? null : apply(`Rename the group ${groupId}`, (s) => renameGroup(s, groupId, name)))}
      />
      <Members
        members={members}
        agents={agents}
        agentName={agentName}
        onRemove={(agent) => change("members", (s) => removeMember(s, groupId, agent))}
        onAdd={(agent) => change("members", (s) => addMember(s, groupId, agent))}
      />
      <TextField
        label="Time limit"
        help="How long the members may work, like 30s, 2m or 1m 30s. Empty: 30 seconds."
        placeholder="30s"
        value={timeout}
        validate={timeoutProblem}
        onCommit={(value) => change("time limit", (s) => updateGroup(s, groupId, { timeout: value }))}
      />
      <CheckField
        label="Wait for every member"
        help="On: a member that runs out of time stops the run. Off: the crew goes on with whoever finished."
        checked={group.wait_for_all ?? false}
        onChange={(on) => change("waiting setting", (s) => updateGroup(s, groupId, { wait_for_all: on }))}
      />
      <SelectField
        label="Then continue with"
        help="Who gets the members' replies when the group is done."
        value={group.next_agent ?? ""}
        options={[
          { value: "", label: "The agent that sent the work" },
          ...agents.map((id) => ({ value: id, label: agentName(id) })),
        ]}
        onChange={(next) => change("next agent", (s) => updateGroup(s, groupId, { next_agent: next }))}
      />
      <TextField
        label="Description"
        help="What the group is for, in a sentence."
        value={group.description ?? ""}
        multiline
        rows={2}
        onCommit={(value) => change("description", (s) => updateGroup(s, groupId, { description: value }))}
      />
      <div className="ins-actions">
        <button type="button" className="ins-button danger" onClick={remove}>
          Delete group
        </button>
      </div>
    </section>
  );
}

type MembersProps = {
  members: string[];
  agents: string[];
  agentName: (id: string) => string;
  onRemove: (agent: string) => string | null;
  onAdd: (agent: string) => string | null;
};

/** The members, each with a remove button, and a select to add another. */
function Members({ members, agents, agentName, onRemove, onAdd }: MembersProps) {
  const id = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  const outside = agents.filter((a) => !members.includes(a));
  const help = "They all get the work at once and reply side by side.";
  return (
    <div className="ins-field">
      <div className="ins-label">Members</div>
      {members.length === 0 ? (
        <p className="ins-muted">Nobody yet: add an agent below.</p>
      ) : (
        <ul className="ins-list" aria-label="Members">
          {members.map((member) => (
            <li key={member} className="ins-list-row">
              <span>{agentName(member)}</span>
              <button
                type="button"
                className="ins-icon-button"
                aria-label={`Remove ${agentName(member)} from the group`}
                title={`Remove ${agentName(member)} from the group`}
                onClick={() => setRefusal(onRemove(member))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <label className="ins-sublabel" htmlFor={id}>
        Add member
      </label>
      <select
        id={id}
        className="ins-input"
        value=""
        disabled={outside.length === 0}
        aria-describedby={describedBy(id, help, refusal)}
        onChange={(e) => e.target.value && setRefusal(onAdd(e.target.value))}
      >
        <option value="">{outside.length === 0 ? "Every agent is in the group" : "Pick an agent to add…"}</option>
        {outside.map((agent) => (
          <option key={agent} value={agent}>
            {agentName(agent)}
          </option>
        ))}
      </select>
      {refusal && (
        <p className="ins-error" id={`${id}-error`} role="alert">
          {refusal}
        </p>
      )}
      <p className="ins-help" id={`${id}-help`}>
        {help}
      </p>
    </div>
  );
}
