// Settings: the models agents can use — the built-in local model and the ones the
// person adds (a provider, the provider's model name, its server, the name its API
// key is kept under) — which one is the default, and each model's API key. A key
// goes into the OS keyring and is never shown again: the list says only whether
// one is set and where it comes from.
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { backend } from "../../backend";
import type { ModelRequest } from "../../bindings/ModelRequest";
import type { ModelView } from "../../bindings/ModelView";
import { Dialog } from "../Dialog";

const providers = [
  { id: "openai", words: "OpenAI, or any server that speaks its protocol" },
  { id: "anthropic", words: "Anthropic" },
  { id: "local", words: "A llama.cpp server of your own" },
];

const keyWords = (model: ModelView) =>
  model.provider === "local" && !model.key_name
    ? "needs no key"
    : model.key === "keyring"
      ? "key set (in the keyring)"
      : model.key === "environment"
        ? "key set (from the environment)"
        : "no key set";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [models, setModels] = useState<ModelView[] | null>(null);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async (check = false) => {
    setChecking(check);
    try {
      setModels(await backend.listModels(check));
      setError(null);
    } catch (e) {
      setError(message(e));
    } finally {
      setChecking(false);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const act = async (doing: () => Promise<unknown>, done: string) => {
    try {
      await doing();
      setNotice(done);
      setError(null);
      await load();
    } catch (e) {
      setError(message(e));
    }
  };

  return (
    <Dialog className="settings-dialog" labelledBy="settings-title" onClose={onClose}>
        <h2 id="settings-title">Settings · models</h2>
        <p className="dialog-help">
          Agents use the default model unless their form names another. Without any model of your own, every agent uses the
          local model, which runs on this computer.
        </p>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        {notice && !error && (
          <p className="field-help" role="status">
            {notice}
          </p>
        )}
        <ul className="settings-models" aria-label="Models">
          {(models ?? []).map((model) => (
            <ModelRow key={model.name} model={model} act={act} />
          ))}
        </ul>
        <div className="dialog-actions settings-check">
          <button type="button" onClick={() => void load(true)} disabled={checking}>
            {checking ? "Asking each model…" : "Check that they answer"}
          </button>
        </div>
        <AddModel onAdd={(name, request) => act(() => backend.putModel(name, request), `Added ${name}.`)} />
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={onClose} autoFocus>
            Done
          </button>
        </div>
    </Dialog>
  );
}

type Act = (doing: () => Promise<unknown>, done: string) => Promise<void>;

function ModelRow({ model, act }: { model: ModelView; act: Act }) {
  const [key, setKey] = useState("");
  const keyName = model.key_name;
  return (
    <li className={`settings-model${model.default ? " default" : ""}`} data-model={model.name}>
      <div className="settings-model-head">
        <strong>{model.name}</strong>
        {model.default && <span className="start-tag">default</span>}
        <span className="muted">
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
      </div>
      <div className="settings-model-actions">
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

function AddModel({ onAdd }: { onAdd: (name: string, request: ModelRequest) => Promise<void> }) {
  const [name, setName] = useState("");
  const [provider, setProvider] = useState("openai");
  const [model, setModel] = useState("");
  const [url, setUrl] = useState("");
  const [keyName, setKeyName] = useState("");
  const [priceIn, setPriceIn] = useState("");
  const [priceOut, setPriceOut] = useState("");
  const price = (text: string) => (text.trim() === "" ? null : Number(text));
  const [input, output] = [price(priceIn), price(priceOut)];
  const priceProblem =
    (input === null) !== (output === null)
      ? "Give both prices, or neither."
      : [input, output].some((p) => p !== null && !(Number.isFinite(p) && p >= 0))
        ? "A price is a number of dollars, 0 or more."
        : null;
  return (
    <form
      className="settings-add"
      aria-label="Add a model"
      onSubmit={(e) => {
        e.preventDefault();
        void onAdd(name.trim(), {
          provider,
          ...(model.trim() ? { model: model.trim() } : {}),
          ...(url.trim() ? { base_url: url.trim() } : {}),
          ...(keyName.trim() ? { key_name: keyName.trim() } : {}),
          ...(input !== null && output !== null ? { input_price: input, output_price: output } : {}),
        }).then(() => setName(""));
      }}
    >
      <h3>Add a model</h3>
      <label className="field">
        <span className="field-label">Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="fast" name="model-name" />
        <span className="field-help">What agents' forms call it: letters, digits, - _ .</span>
      </label>
      <label className="field">
        <span className="field-label">Provider</span>
        <select value={provider} onChange={(e) => setProvider(e.target.value)} name="provider">
          {providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.words}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field-label">The provider's model</span>
        <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="gpt-4o-mini" name="provider-model" />
      </label>
      <label className="field">
        <span className="field-label">Server address (optional)</span>
        <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="the provider's own" name="base-url" />
      </label>
      <label className="field">
        <span className="field-label">Key name (optional)</span>
        <input value={keyName} onChange={(e) => setKeyName(e.target.value)} placeholder="the provider's name" name="key-name" />
        <span className="field-help">The name the key is kept under; the key itself is set in the list above once the model is added.</span>
      </label>
      <fieldset className="settings-price">
        <legend className="field-label">Price (optional), in US dollars per million tokens</legend>
        <label>
          read <input value={priceIn} onChange={(e) => setPriceIn(e.target.value)} inputMode="decimal" placeholder="0.15" name="input-price" />
        </label>
        <label>
          written <input value={priceOut} onChange={(e) => setPriceOut(e.target.value)} inputMode="decimal" placeholder="0.60" name="output-price" />
        </label>
        {priceProblem ? (
          <span className="field-error">{priceProblem}</span>
        ) : (
          <span className="field-help">As the provider lists it; runs then say what they cost.</span>
        )}
      </fieldset>
      <div className="dialog-actions">
        <button type="submit" disabled={!name.trim() || priceProblem !== null}>
          Add model
        </button>
      </div>
    </form>
  );
}
