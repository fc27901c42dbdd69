// Changing the signal registry: one signal's fields edited in place (each
// applied as it is left; renaming takes the routes along), and the form that adds
// a signal. Names are checked by the engine as they are typed.
import { type FormEvent, useState } from "react";
import type { Behavior } from "../../bindings/Behavior";
import type { CrewSpec } from "../../bindings/CrewSpec";
import { DEFAULT_PRIORITY } from "../../editor/registry";
import type { EditResult } from "../../editor/result";
import { groupsOf } from "../../editor/routing";
import { type SignalRow, addSignal, deprecateSignal, renameSignal, updateSignal } from "../../editor/signals";
import { useEditor } from "../../editor/store";
import { behaviorWords } from "../../graph/style";
import { apply } from "./apply";
import { ChoicesField, SelectField, TextField } from "./fields";
import { checkSignalName } from "./useSignalCheck";

const BEHAVIORS: Behavior[] = ["route", "parallel", "broadcast", "terminate", "pause"];

export const behaviorOptions = BEHAVIORS.map((b) => ({
  value: b,
  label: behaviorWords[b][0].toUpperCase() + behaviorWords[b].slice(1),
}));

/** Why a typed priority cannot be used, or null (empty: the default). */
export function priorityProblem(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === "" || /^\d+$/.test(trimmed) ? null : "The priority is a whole number, like 50";
}

type SignalEditorProps = {
  row: SignalRow;
  /** The signal got another name: keep editing it under that name. */
  onRenamed: (name: string) => void;
};

export function SignalEditor({ row, onRenamed }: SignalEditorProps) {
  const spec = useEditor((s) => s.spec);
  if (!spec) return null;
  const { name } = row;
  const change = (words: string, fn: (s: CrewSpec) => EditResult) => apply(`Change ${name}'s ${words}`, fn);
  const agents = spec.agents.flatMap(({ id, name }) => (id ? [{ value: id, label: name || id }] : []));
  const groups = Object.keys(groupsOf(spec)).map((g) => ({ value: g, label: `${g} (group)` }));
  const toggle = (list: string[], value: string, on: boolean) =>
    on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value);
  return (
    <div className="ins-signal-editor" role="group" aria-label={`Change ${name}`}>
      {row.origin === "builtin" && (
        <p className="ins-help">Changing a built-in signal adds it to this crew's signal list.</p>
      )}
      <TextField
        label="Name"
        help="Square brackets around letters, digits, spaces, _ or -, like [READY]. Routes follow a new name."
        value={name}
        mono
        signalName
        onCommit={(to) => {
          const refusal = apply(`Rename ${name}`, (s) => renameSignal(s, name, to));
          if (refusal === null) onRenamed(to.trim());
          return refusal;
        }}
      />
      <SelectField
        label="What it does"
        help="What happens when an agent's reply has this signal."
        value={row.behavior}
        options={behaviorOptions}
        onChange={(behavior) => change("behaviour", (s) => updateSignal(s, name, { behavior }))}
      />
      <TextField
        label="What it means"
        help="A few words, shown on its arrows and told to the agents."
        value={row.description}
        onCommit={(description) => change("description", (s) => updateSignal(s, name, { description }))}
      />
      <ChoicesField
        label="Who may send it"
        help="None ticked: any agent may."
        choices={agents}
        chosen={row.allowed_agents}
        empty="There are no agents yet."
        onToggle={(agent, on) =>
          change("senders", (s) => updateSignal(s, name, { allowed_agents: toggle(row.allowed_agents, agent, on) }))
        }
      />
      <ChoicesField
        label="May lead to"
        help="None ticked: anywhere its behaviour allows."
        choices={[...agents, ...groups]}
        chosen={row.valid_targets}
        empty="There are no agents yet."
        onToggle={(target, on) =>
          change("targets", (s) => updateSignal(s, name, { valid_targets: toggle(row.valid_targets, target, on) }))
        }
      />
      <TextField
        label="Priority"
        help={`When a reply has several signals, the higher number wins. Empty: ${DEFAULT_PRIORITY}.`}
        value={String(row.priority)}
        type="number"
        min={0}
        step={1}
        validate={priorityProblem}
        onCommit={(text) =>
          change("priority", (s) => updateSignal(s, name, { priority: text.trim() === "" ? undefined : Number(text) }))
        }
      />
      <TextField
        label="Being phased out"
        help="Say what to use instead; agents are warned when they use it. Empty: still in use."
        value={row.deprecated ?? ""}
        onCommit={(note) =>
          apply(note.trim() ? `Phase out ${name}` : `Keep ${name} in use`, (s) => deprecateSignal(s, name, note))
        }
      />
    </div>
  );
}

/** The form that adds a signal to the registry. */
export function AddSignal({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState("");
  const [behavior, setBehavior] = useState<Behavior>("route");
  const [description, setDescription] = useState("");
  const [refusal, setRefusal] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = name.trim() === "" ? "Every signal needs a name" : await checkSignalName(name);
    const error =
      problem ??
      apply(`Add the signal ${name.trim()}`, (s) =>
        addSignal(s, { name, behavior, description }, { checkSignal: () => null }),
      );
    setRefusal(error);
    if (error === null) onDone();
  };
  const keep = (set: (value: string) => void) => (value: string) => {
    set(value);
    setRefusal(null);
    return null;
  };
  return (
    <form className="ins-signal-editor" aria-label="New signal" onSubmit={submit} noValidate>
      <TextField
        label="Name"
        help="Square brackets around letters, digits, spaces, _ or -, like [READY]."
        value={name}
        live
        autoFocus
        mono
        signalName
        placeholder="[READY]"
        error={refusal}
        onCommit={keep(setName)}
      />
      <SelectField
        label="What it does"
        help="What happens when an agent's reply has this signal."
        value={behavior}
        options={behaviorOptions}
        onChange={(value) => {
          setBehavior(value as Behavior);
          return null;
        }}
      />
      <TextField
        label="What it means"
        help="A few words, shown on its arrows and told to the agents."
        value={description}
        live
        onCommit={keep(setDescription)}
      />
      <div className="ins-actions">
        <button type="submit" className="ins-button primary">
          Add signal
        </button>
        <button type="button" className="ins-button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
