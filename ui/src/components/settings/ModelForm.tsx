// Settings' model form: a model to add, or one of the list to change (Edit) — its
// name, provider, the provider's name for it, its server, the name its key is kept
// under, its context window, its longest reply and its price. Every number is
// checked as it is typed, in words.
import { useEffect, useRef, useState } from "react";
import type { ModelRequest } from "../../bindings/ModelRequest";
import type { ModelView } from "../../bindings/ModelView";

const providers = [
  { id: "openai", words: "OpenAI, or any server that speaks its protocol" },
  { id: "anthropic", words: "Anthropic" },
  { id: "local", words: "A llama.cpp server of your own" },
];

/** The smallest and largest context window a model may be given (the backend's bounds). */
const WINDOW_FEWEST = 256;
const WINDOW_MOST = 10_000_000;

/** A whole number typed, or null for an empty field; NaN when it is not one. */
function wholeNumber(text: string): number | null {
  const trimmed = text.replace(/[,_\s]/g, "");
  if (trimmed === "") return null;
  const value = Number(trimmed);
  return Number.isInteger(value) ? value : Number.NaN;
}

/** Why the typed context window and longest reply cannot be used (null: they can). */
export function sizeProblem(windowText: string, maxText: string): string | null {
  const window = wholeNumber(windowText);
  const max = wholeNumber(maxText);
  if (window !== null && (Number.isNaN(window) || window < WINDOW_FEWEST || window > WINDOW_MOST)) {
    return "The context window is a whole number of tokens, from 256 to 10,000,000.";
  }
  if (max !== null && (Number.isNaN(max) || max < 1)) return "The longest reply is a whole number of tokens, 1 or more.";
  if (window !== null && max !== null && max >= window) return "The longest reply must be smaller than the context window (the window holds the instructions too).";
  return null;
}

/** Why the typed prices cannot be used (null: they can). */
export function priceProblem(input: number | null, output: number | null): string | null {
  if ((input === null) !== (output === null)) return "Give both prices, or neither.";
  if ([input, output].some((p) => p !== null && !(Number.isFinite(p) && p >= 0))) return "A price is a number of dollars, 0 or more.";
  return null;
}

const price = (text: string) => (text.trim() === "" ? null : Number(text));
const shown = (value: number | undefined) => (value === undefined ? "" : String(value));

type Props = {
  /** The model being changed; null: a new one. */
  editing: ModelView | null;
  onSave: (name: string, request: ModelRequest) => Promise<boolean>;
  onCancel: () => void;
};

export function ModelForm({ editing, onSave, onCancel }: Props) {
  const [name, setName] = useState("");
  const [provider, setProvider] = useState("openai");
  const [model, setModel] = useState("");
  const [url, setUrl] = useState("");
  const [keyName, setKeyName] = useState("");
  const [windowText, setWindowText] = useState("");
  const [maxText, setMaxText] = useState("");
  const [priceIn, setPriceIn] = useState("");
  const [priceOut, setPriceOut] = useState("");
  const first = useRef<HTMLInputElement>(null);

  // Edit fills the form with the model as it is, and brings it into view.
  useEffect(() => {
    setName(editing?.name ?? "");
    setProvider(editing?.provider ?? "openai");
    setModel(editing?.model ?? "");
    setUrl(editing?.base_url ?? "");
    setKeyName(editing?.key_name ?? "");
    setWindowText(shown(editing?.context_window));
    setMaxText(shown(editing?.max_tokens));
    setPriceIn(shown(editing?.input_price));
    setPriceOut(shown(editing?.output_price));
    if (editing) {
      first.current?.scrollIntoView?.({ block: "nearest" });
      first.current?.focus();
    }
  }, [editing]);

  const [input, output] = [price(priceIn), price(priceOut)];
  const prices = priceProblem(input, output);
  const sizes = sizeProblem(windowText, maxText);
  const window = wholeNumber(windowText);
  const max = wholeNumber(maxText);
  const submit = async () => {
    const saved = await onSave(name.trim(), {
      provider,
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(url.trim() ? { base_url: url.trim() } : {}),
      ...(keyName.trim() ? { key_name: keyName.trim() } : {}),
      ...(window !== null ? { context_window: window } : {}),
      ...(max !== null ? { max_tokens: max } : {}),
      ...(input !== null && output !== null ? { input_price: input, output_price: output } : {}),
    });
    if (saved && !editing) setName("");
  };
  return (
    <form
      className="settings-add"
      aria-label={editing ? `Change ${editing.name}` : "Add a model"}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3>{editing ? `Change ${editing.name}` : "Add a model"}</h3>
      <label className="field">
        <span className="field-label">Name</span>
        <input ref={first} value={name} onChange={(e) => setName(e.target.value)} placeholder="fast" name="model-name" disabled={editing !== null} />
        <span className="field-help">{editing ? "A model keeps its name: add a new one to use another." : "What agents' forms call it: letters, digits, - _ ."}</span>
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
      <fieldset className="settings-sizes">
        <legend className="field-label">Sizes (optional), in tokens — a token is about three quarters of a word</legend>
        <label>
          context window <input value={windowText} onChange={(e) => setWindowText(e.target.value)} inputMode="numeric" placeholder="8192" name="context-window" />
        </label>
        <label>
          longest reply <input value={maxText} onChange={(e) => setMaxText(e.target.value)} inputMode="numeric" placeholder="1024" name="max-tokens" />
        </label>
        {sizes ? (
          <span className="field-error">{sizes}</span>
        ) : (
          <span className="field-help">
            The window holds an agent's instructions, the conversation and the reply; empty: what its server reports, or what is known of the
            model. The longest reply: empty, the model's own.
          </span>
        )}
      </fieldset>
      <fieldset className="settings-price">
        <legend className="field-label">Price (optional), in US dollars per million tokens</legend>
        <label>
          read <input value={priceIn} onChange={(e) => setPriceIn(e.target.value)} inputMode="decimal" placeholder="0.15" name="input-price" />
        </label>
        <label>
          written <input value={priceOut} onChange={(e) => setPriceOut(e.target.value)} inputMode="decimal" placeholder="0.60" name="output-price" />
        </label>
        {prices ? <span className="field-error">{prices}</span> : <span className="field-help">As the provider lists it; runs then say what they cost.</span>}
      </fieldset>
      <div className="dialog-actions">
        {editing && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" disabled={!name.trim() || prices !== null || sizes !== null}>
          {editing ? "Save changes" : "Add model"}
        </button>
      </div>
    </form>
  );
}
