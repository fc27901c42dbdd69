// The guided start's third way: a provider key. Which provider (OpenAI, Anthropic,
// OpenRouter, or any OpenAI-compatible address), the model, the key — kept in the
// OS keyring by the window; a browser cannot send keys, so there the form says
// where to set one instead — and the model is checked on the spot: a refused key
// is said as such ("The key was refused — check it and try again").
import { type FormEvent, useId, useState } from "react";
import { backend } from "../../backend";
import { addKeyedModel, type Chosen, keyNameOf, PROVIDERS, type ProviderChoice } from "../../models/choose";
import { modelNameFor } from "../../models/names";
import { checkWords, KEY_REFUSED, problemWords } from "../../models/words";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const choices = Object.keys(PROVIDERS) as ProviderChoice[];

/** Why a model was not added, as the person should read it. */
function refusal(problem: string | undefined): string {
  const words = problemWords(problem ?? "no reply came");
  return words === KEY_REFUSED ? words : `It did not answer, so it was not added: ${words}`;
}

/** The environment variable a key named `name` may also come from. */
const envName = (name: string) => `CREWGRAPH_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;

export function KeyForm({ onUsed }: { onUsed: (chosen: Chosen) => void }) {
  const id = useId();
  const [choice, setChoice] = useState<ProviderChoice>("openai");
  const [model, setModel] = useState("");
  const [key, setKey] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const provider = PROVIDERS[choice];
  const keyName = keyNameOf(choice, modelNameFor(model || "model", []));
  const keepsKeys = backend.keepsKeys;
  const missing = !model.trim()
    ? "Write the model's name."
    : choice === "compatible" && !baseUrl.trim()
      ? "Write the server's address."
      : keepsKeys && provider.needsKey && !key.trim()
        ? "Paste the key."
        : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (missing || busy) return;
    setBusy(true);
    setResult(null);
    try {
      const chosen = await addKeyedModel(backend, { choice, model, key, baseUrl });
      setKey("");
      setResult(
        chosen.chosen
          ? { ok: true, text: `Agents now use ${chosen.name}. It ${checkWords(chosen.check).join(" · ")}.` }
          : { ok: false, text: refusal(chosen.check.problem) },
      );
      onUsed(chosen);
    } catch (e) {
      setResult({ ok: false, text: refusal(message(e)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="key-form" onSubmit={(e) => void submit(e)} aria-label="Use a provider key">
      <div className="field">
        <label className="field-label" htmlFor={`${id}-provider`}>
          Provider
        </label>
        <select id={`${id}-provider`} value={choice} onChange={(e) => setChoice(e.target.value as ProviderChoice)} name="key-provider">
          {choices.map((c) => (
            <option key={c} value={c}>
              {PROVIDERS[c].words}
            </option>
          ))}
        </select>
      </div>
      {choice === "compatible" && (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-url`}>
            Server address
          </label>
          <input
            id={`${id}-url`}
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="https://example.com/v1"
            name="key-base-url"
            spellCheck={false}
            aria-describedby={`${id}-url-help`}
          />
          <span className="field-help" id={`${id}-url-help`}>
            Where the server answers OpenAI's protocol, usually ending in /v1.
          </span>
        </div>
      )}
      <div className="field">
        <label className="field-label" htmlFor={`${id}-model`}>
          Model
        </label>
        <input
          id={`${id}-model`}
          value={model}
          onChange={(e) => setModel(e.target.value)}
          placeholder={provider.example}
          name="key-model"
          spellCheck={false}
          aria-describedby={`${id}-model-help`}
        />
        <span className="field-help" id={`${id}-model-help`}>
          The provider's name for it, as its website lists it.
        </span>
      </div>
      {keepsKeys ? (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-key`}>
            {provider.needsKey ? "Key" : "Key (if the server needs one)"}
          </label>
          <input
            id={`${id}-key`}
            type="password"
            autoComplete="off"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="paste the key"
            name="key-secret"
            aria-describedby={`${id}-key-help`}
          />
          <span className="field-help" id={`${id}-key-help`}>
            Kept in this computer's keyring, never in crew files, and never shown again.
          </span>
        </div>
      ) : (
        <p className="field-help key-elsewhere">
          A browser does not send keys over the web. On the computer Crewgraph's server runs on, set it with{" "}
          <code>crewgraph keys set {keyName}</code> or the environment variable <code>{envName(keyName)}</code>, then check here.
        </p>
      )}
      <div className="key-form-actions">
        <button type="submit" className="primary" disabled={missing !== null || busy} title={missing ?? "Add the model and check that it answers"}>
          {busy ? "Checking…" : "Check and use"}
        </button>
        {missing && !busy && <span className="field-help">{missing}</span>}
      </div>
      {busy && (
        <p className="found-result" role="status">
          Asking the model a few questions (a few seconds)…
        </p>
      )}
      {result && (
        <p className={`found-result${result.ok ? " ok" : " field-error"}`} role={result.ok ? "status" : "alert"}>
          {result.text}
        </p>
      )}
    </form>
  );
}
