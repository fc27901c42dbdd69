// The agent form's model picker: the default model, the models of the settings —
// each with what its last check found ("8,192-token window · no tools") — or any
// `provider/model` typed in.
import { useId, useState } from "react";
import type { ModelView } from "../../bindings/ModelView";
import { useModels } from "../../models/store";
import { defaultModel } from "../../models/warnings";
import { checkSummary } from "../../models/words";
import { type Commit, Field, TextField, describedBy } from "./fields";

/** The option that lets the person type a model; no model is named so. */
export const OTHER = "(other)";

/** A model as the picker lists it: its name, provider, and what its check found. */
export function modelOption(model: ModelView): string {
  return `${model.name} (${model.provider}) · ${checkSummary(model.check, model.context_window)}`;
}

type ModelPickerProps = {
  /** The agent's `model` ("" = the default model). */
  value: string;
  onChange: Commit<string>;
  live?: boolean;
};

export function ModelPicker({ value, onChange, live = false }: ModelPickerProps) {
  const id = useId();
  const list = useModels() ?? [];
  const fallback = defaultModel(list);
  const [typing, setTyping] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const known = list.some((m) => m.name === value);
  const help = "Which model writes this agent's replies. Models are set up in Settings.";
  const pick = (choice: string) => {
    if (choice === OTHER) {
      setTyping(true);
      return;
    }
    setTyping(false);
    setRefusal(choice === value ? null : onChange(choice));
  };
  return (
    <>
      <Field id={id} label="Model" help={help} error={refusal}>
        <select
          id={id}
          className="ins-input"
          value={typing ? OTHER : value}
          aria-describedby={describedBy(id, help, refusal)}
          onChange={(e) => pick(e.target.value)}
        >
          <option value="">{fallback ? `Default model: ${modelOption(fallback)}` : "Default model"}</option>
          {list.map((m) => (
            <option key={m.name} value={m.name}>
              {`${modelOption(m)}${m.default ? " · the default" : ""}`}
            </option>
          ))}
          {value !== "" && !known && <option value={value}>{value}</option>}
          <option value={OTHER}>Other…</option>
        </select>
      </Field>
      {typing && (
        <TextField
          label="Other model"
          help="Write the provider and the model, like openai/gpt-4o-mini."
          placeholder="provider/model"
          value={value}
          live={live}
          autoFocus
          mono
          validate={(text) => (text.trim() === "" || text.includes("/") ? null : "Write it as provider/model, like openai/gpt-4o-mini")}
          onCommit={onChange}
        />
      )}
    </>
  );
}
