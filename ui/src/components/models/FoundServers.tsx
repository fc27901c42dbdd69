// The model servers running on this computer (Ollama, LM Studio, llama.cpp's
// server, vLLM, Jan, LocalAI — wherever Crewgraph looks), each with its models and
// a Use button that adds the model, checks it and, when it answers, makes it the
// one agents use; what the check found is said under the model, in words. Below,
// where Crewgraph looks (host:port addresses, a setting), to change. The same
// component serves the guided start and Settings.
import { type FormEvent, useCallback, useEffect, useId, useState } from "react";
import { backend } from "../../backend";
import type { FoundServer } from "../../bindings/FoundServer";
import { addServerModel, type Chosen } from "../../models/choose";
import { reloadModels } from "../../models/store";
import { checkWords, problemWords } from "../../models/words";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** "127.0.0.1:11434" from "http://127.0.0.1:11434/v1". */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Addresses as typed: separated by commas, spaces or new lines. */
export function parseAddresses(text: string): string[] {
  return text.split(/[\s,]+/).filter((a) => a !== "");
}

type Props = {
  /** Told when a model was used (whether it answered or not). */
  onUsed?: (chosen: Chosen) => void;
  /** Where Crewgraph looks is shown unfolded (Settings), not only when nothing is found. */
  addressesOpen?: boolean;
};

export function FoundServers({ onUsed, addressesOpen = false }: Props) {
  const [found, setFound] = useState<FoundServer[] | null>(null);
  const [looking, setLooking] = useState(false);
  const [addresses, setAddresses] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);

  const look = useCallback(async () => {
    setLooking(true);
    setError(null);
    try {
      const [servers, where] = await Promise.all([backend.discoverModels(), backend.modelServers()]);
      setFound(servers);
      setAddresses(where);
    } catch (e) {
      setError(`Could not look for model servers: ${message(e)}`);
    } finally {
      setLooking(false);
    }
  }, []);
  useEffect(() => void look(), [look]);

  const lookAt = async (list: string[]) => {
    setError(null);
    try {
      await backend.setModelServers(list);
    } catch (e) {
      setError(message(e));
      return;
    }
    await look();
  };

  const nothing = found !== null && found.length === 0;
  return (
    <div className="found-servers">
      {found === null && !error && <p className="muted">Looking for model servers on this computer…</p>}
      {nothing && (
        <p className="found-none">
          No model server is running where Crewgraph looked. If you use Ollama, LM Studio, llama.cpp's server, vLLM, Jan or LocalAI, start
          it and look again — or tell Crewgraph the address yours listens at, below.
        </p>
      )}
      {found && found.length > 0 && (
        <ul className="found-list" aria-label="Model servers found">
          {found.map((server) => (
            <li key={server.base_url} className="found-server" data-server={hostOf(server.base_url)}>
              <div className="found-server-head">
                <strong>{server.kind}</strong> <span className="muted">at {hostOf(server.base_url)}</span>
              </div>
              {server.models.length === 0 ? (
                <p className="muted">It answers, but serves no model yet: load one in it, then look again.</p>
              ) : (
                <ul className="found-models">
                  {server.models.map((model) => (
                    <FoundModel key={model} server={server} model={model} onUsed={onUsed} />
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <Addresses addresses={addresses} open={addressesOpen || nothing} looking={looking} onLook={lookAt} onLookAgain={() => void look()} />
    </div>
  );
}

type Use = { state: "idle" } | { state: "checking" } | { state: "done"; chosen: Chosen } | { state: "failed"; why: string };

function FoundModel({ server, model, onUsed }: { server: FoundServer; model: string; onUsed?: (chosen: Chosen) => void }) {
  const [use, setUse] = useState<Use>({ state: "idle" });
  const press = async () => {
    setUse({ state: "checking" });
    try {
      const chosen = await addServerModel(backend, server, model);
      setUse({ state: "done", chosen });
      await reloadModels();
      onUsed?.(chosen);
    } catch (e) {
      setUse({ state: "failed", why: problemWords(message(e)) });
    }
  };
  return (
    <li className="found-model" data-model={model}>
      <span className="found-model-name" title={model}>
        {model}
      </span>
      <button type="button" className="found-use" onClick={() => void press()} disabled={use.state === "checking"} title={`Add ${model} and check what it can do`}>
        {use.state === "checking" ? "Checking…" : "Use"}
      </button>
      <UseResult use={use} />
    </li>
  );
}

function UseResult({ use }: { use: Use }) {
  if (use.state === "idle") return null;
  if (use.state === "checking") {
    return (
      <p className="found-result" role="status">
        Asking it a few questions (a few seconds)…
      </p>
    );
  }
  if (use.state === "failed") {
    return (
      <p className="found-result field-error" role="alert">
        {use.why}
      </p>
    );
  }
  const { chosen } = use;
  const words = checkWords(chosen.check).join(" · ");
  return chosen.chosen ? (
    <p className="found-result ok" role="status">
      Agents now use <strong>{chosen.name}</strong>. It {words}.
    </p>
  ) : (
    <p className="found-result field-error" role="alert">
      Not added: it {words}
    </p>
  );
}

type AddressesProps = {
  addresses: string[];
  open: boolean;
  looking: boolean;
  onLook: (addresses: string[]) => Promise<void>;
  onLookAgain: () => void;
};

/** Where Crewgraph looks for model servers: shown, changed, or back to the usual places. */
function Addresses({ addresses, open, looking, onLook, onLookAgain }: AddressesProps) {
  const id = useId();
  const [text, setText] = useState<string | null>(null);
  // Opened by the person, or because nothing was found: it stays open until they close it.
  const [opened, setOpened] = useState(open);
  useEffect(() => {
    if (open) setOpened(true);
  }, [open]);
  const shown = text ?? addresses.join(", ");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void onLook(parseAddresses(shown)).then(() => setText(null));
  };
  return (
    <details className="server-addresses" open={opened} onToggle={(e) => setOpened(e.currentTarget.open)}>
      <summary>Where Crewgraph looks</summary>
      <form onSubmit={submit} className="server-addresses-form">
        <label className="field-label" htmlFor={`${id}-addresses`}>
          Addresses to look at
        </label>
        <input
          id={`${id}-addresses`}
          name="model-server-addresses"
          value={shown}
          onChange={(e) => setText(e.target.value)}
          placeholder="127.0.0.1:11434"
          aria-describedby={`${id}-help`}
          spellCheck={false}
        />
        <span className="field-help" id={`${id}-help`}>
          Each as host:port (for example 127.0.0.1:11434 for Ollama), separated by commas.
        </span>
        <div className="server-addresses-actions">
          <button type="submit" disabled={looking}>
            {looking ? "Looking…" : "Look there"}
          </button>
          <button type="button" onClick={() => void onLook([]).then(() => setText(null))} disabled={looking}>
            The usual places
          </button>
          <button type="button" onClick={onLookAgain} disabled={looking}>
            Look again
          </button>
        </div>
      </form>
    </details>
  );
}
