// Settings: the models agents can use — the built-in local model and the ones the
// person adds (a provider, the provider's model name, its server, the name its API
// key is kept under, its context window and longest reply) — which one is the
// default, what each one's last check found, and each model's API key; then the
// model servers running on this computer, with Use, and where Crewgraph looks for
// them; then the tool servers every crew can use (ToolServers); then where every
// run's trace goes (Traces). A key goes into the OS keyring and is never shown again:
// the list says only whether one is set and where it comes from.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend } from "../../backend";
import type { ModelView } from "../../bindings/ModelView";
import { reloadModels } from "../../models/store";
import { Dialog } from "../Dialog";
import { FoundServers } from "../models/FoundServers";
import { ModelForm } from "./ModelForm";
import { ToolServers } from "./ToolServers";
import { Traces } from "./Traces";
import { type Act, ModelRow } from "./ModelRow";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  const [models, setModels] = useState<ModelView[] | null>(null);
  const [probing, setProbing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<ModelView | null>(null);
  // Done has the focus (Enter or Escape closes), without scrolling the long dialog
  // to its end: it opens at the models.
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => done.current?.focus({ preventScroll: true }), []);

  const load = useCallback(async (probe = false) => {
    setProbing(probe);
    try {
      setModels(await backend.listModels(probe));
      setError(null);
    } catch (e) {
      setError(message(e));
    } finally {
      setProbing(false);
    }
    // The rest of the window (the start view, agent forms, warnings) sees the change.
    void reloadModels();
  }, []);
  useEffect(() => void load(), [load]);

  const act: Act = async (doing, done) => {
    try {
      await doing();
      setNotice(done);
      setError(null);
      await load();
      return true;
    } catch (e) {
      setError(message(e));
      return false;
    }
  };

  return (
    <Dialog className="settings-dialog" labelledBy="settings-title" onClose={onClose}>
      <h2 id="settings-title">Settings · models</h2>
      <p className="dialog-help">
        Agents use the default model unless their form names another. Without any model of your own, every agent uses the local model,
        which runs on this computer.
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
          <ModelRow key={model.name} model={model} act={act} onEdit={setEditing} />
        ))}
      </ul>
      <div className="dialog-actions settings-check">
        <button type="button" onClick={() => void load(true)} disabled={probing}>
          {probing ? "Asking each model…" : "Check that they answer"}
        </button>
      </div>
      <ModelForm
        key={editing?.name ?? ""}
        editing={editing}
        onCancel={() => setEditing(null)}
        onSave={async (name, request) => {
          const saved = await act(() => backend.putModel(name, request), editing ? `Changed ${name}.` : `Added ${name}.`);
          if (saved) setEditing(null);
          return saved;
        }}
      />
      <section className="settings-servers" aria-labelledby="settings-servers-title">
        <h3 id="settings-servers-title">Model servers on this computer</h3>
        <p className="field-help">
          Ollama, LM Studio, llama.cpp's server, vLLM, Jan and LocalAI, where they usually listen. Use adds a model, checks it and makes
          it the default when it answers.
        </p>
        <FoundServers addressesOpen onUsed={() => void load()} />
      </section>
      <ToolServers />
      <Traces />
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose} ref={done}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
