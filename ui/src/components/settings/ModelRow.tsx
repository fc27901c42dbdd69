// One model in Settings' list: its name, provider and server, whether its key is
// set (never the key), what its last check found in words — context window and
// where that came from, streaming, tools, structured answers, speed — with Check to
// ask again, Edit, Make default, Remove, and the field its key is set in.
import { type FormEvent, useState } from "react";
import { backend } from "../../backend";
import type { ModelView } from "../../bindings/ModelView";
import { checkWords, windowWords } from "../../models/words";

/** Does something to the models, says `done` when it worked, and reloads the list. */
export type Act = (doing: () => Promise<unknown>, done: string) => Promise<boolean>;

const keyWords = (model: ModelView) =>
  model.provider === "local" && !model.key_name
    ? "needs no key"
    : model.key === "keyring"
      ? "key set (in the keyring)"
      : model.key === "environment"
        ? "key set (from the environment)"
        : "no key set";

/** When a check was made, as a person reads a date. */
const when = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** What was set by hand: the window and the longest reply. */
function setWords(model: ModelView): string | null {
  const words = [
    model.context_window !== undefined ? `${windowWords(model.context_window)} (as set here)` : "",
    model.max_tokens !== undefined ? `replies of ${model.max_tokens.toLocaleString("en-US")} tokens at most` : "",
  ].filter(Boolean);
  return words.length ? words.join(" · ") : null;
}

export function ModelRow({ model, act, onEdit }: { model: ModelView; act: Act; onEdit: (model: ModelView) => void }) {
  const [key, setKey] = useState("");
  const [checking, setChecking] = useState(false);
  const keyName = model.key_name;
  const check = model.check;
  const set = setWords(model);
  const runCheck = async () => {
    setChecking(true);
    await act(() => backend.checkModel(model.name), `Checked ${model.name}.`);
    setChecking(false);
  };
  return (
    <li className={`settings-model${model.default ? " default" : ""}`} data-model={model.name}>
      <div className="settings-model-head">
        <strong>{model.name}</strong>
        {model.default && <span className="start-tag">default</span>}
        <span className="muted">
          {model.name === "local" ? "the built-in demo model · " : ""}
          {model.provider}
          {model.model ? ` · ${model.model}` : ""}
          {model.base_url ? ` · ${model.base_url}` : ""}
          {typeof model.input_price === "number" && typeof model.output_price === "number"
            ? ` · $${model.input_price} / $${model.output_price} per million tokens read / written`
            : ""}
        </span>
      </div>
      <div className="settings-model-state">
        <span>{keyWords(model)}</span>
        {model.reachable === true && <span className="settings-ok">answers</span>}
        {model.reachable === false && <span className="field-error">does not answer: {model.problem}</span>}
        {set && <span>{set}</span>}
      </div>
      <p className={`settings-model-check${check && !check.answers ? " field-error" : ""}`}>
        {checking
          ? "Asking it a few questions (a few seconds)…"
          : check
            ? `When checked (${when(check.checked_at)}), it ${checkWords(check).join(" · ")}.`
            : "Not checked yet: Check asks it a few questions to see what it can do."}
      </p>
      <div className="settings-model-actions">
        <button type="button" onClick={() => void runCheck()} disabled={checking} title="Ask it a few questions: does it answer, its context window, tools, structured answers, speed">
          {checking ? "Checking…" : "Check"}
        </button>
        {model.name !== "local" && (
          <button type="button" onClick={() => onEdit(model)}>
            Edit
          </button>
        )}
        {!model.default && (
          <button type="button" onClick={() => void act(() => backend.setDefaultModel(model.name), `${model.name} is the default now.`)}>
            Make default
          </button>
        )}
        {model.name !== "local" && (
          <button type="button" onClick={() => void act(() => backend.removeModel(model.name), `Removed ${model.name}.`)}>
            Remove
          </button>
        )}
      </div>
      {keyName && (
        <form
          className="settings-key"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            const typed = key;
            setKey("");
            void act(() => backend.setApiKey(keyName, typed), `The key for ${model.name} is kept in the keyring.`);
          }}
        >
          <label className="field-label" htmlFor={`key-${model.name}`}>
            API key ({keyName})
          </label>
          <input
            id={`key-${model.name}`}
            type="password"
            autoComplete="off"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder={model.key ? "•••••••• (set — type a new one to replace it)" : "paste the key"}
          />
          <button type="submit" disabled={!key.trim()}>
            Save key
          </button>
          {model.key === "keyring" && (
            <button type="button" onClick={() => void act(() => backend.removeApiKey(keyName), `Forgot the key for ${model.name}.`)}>
              Forget key
            </button>
          )}
        </form>
      )}
    </li>
  );
}
