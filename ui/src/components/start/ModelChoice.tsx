// The start view's first question while no model is chosen: which model writes the
// agents' replies. Three ways, each one step: the built-in demo model (small, for
// trying things), a model server found on this computer, or a provider key —
// both checked on the spot. Once a model is chosen it shrinks to one line: which
// model agents use and what its check found, with Change to see the ways again.
//
// "Chosen" is what the backend says (a model of one's own is the default); the demo
// model needs no setting to be used, so choosing it is remembered for the window's
// session (a new session offers the three ways again while nothing else is set up).
import { useId, useState } from "react";
import { backend } from "../../backend";
import type { ModelView } from "../../bindings/ModelView";
import type { Chosen } from "../../models/choose";
import { reloadModels, useModels } from "../../models/store";
import { defaultModel } from "../../models/warnings";
import { checkWords } from "../../models/words";
import { FoundServers } from "../models/FoundServers";
import { KeyForm } from "./KeyForm";

const DEMO_KEY = "crewgraph-demo-chosen";

function demoRemembered(): boolean {
  try {
    return sessionStorage.getItem(DEMO_KEY) === "1";
  } catch {
    return false;
  }
}

function rememberDemo(on: boolean): void {
  try {
    if (on) sessionStorage.setItem(DEMO_KEY, "1");
    else sessionStorage.removeItem(DEMO_KEY);
  } catch {
    // Not remembered: a reload offers the three ways again.
  }
}

/** Whether agents have a model chosen: one of one's own is the default. */
export function modelChosen(models: readonly ModelView[]): boolean {
  return models.some((m) => m.name !== "local" && m.default);
}

/** What the person reads about a model: its own words for the demo model. */
export const modelTitle = (model: ModelView) => (model.name === "local" ? "the built-in demo model" : model.name);

type Way = "server" | "key";

export function ModelChoice() {
  const id = useId();
  const models = useModels();
  const [demo, setDemo] = useState(demoRemembered);
  const [expanded, setExpanded] = useState(false);
  const [way, setWay] = useState<Way | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  if (models === null) return null;

  const own = models.filter((m) => m.name !== "local");
  const chosen = modelChosen(models) || demo;
  const current = defaultModel(models);

  const choose = async (name: string) => {
    setBusy(true);
    setError(null);
    try {
      await backend.setDefaultModel(name);
      const isDemo = name === "local";
      rememberDemo(isDemo);
      setDemo(isDemo);
      setExpanded(false);
      setWay(null);
      await reloadModels();
      // What the demo model can do, asked now (it also starts it, so the first run
      // does not wait for that).
      if (isDemo) {
        setChecking(true);
        await backend.checkModel("local").catch(() => {});
        await reloadModels();
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
      setChecking(false);
    }
  };

  const used = (result: Chosen) => {
    if (!result.chosen) return;
    rememberDemo(false);
    setDemo(false);
    setExpanded(false);
    setWay(null);
  };

  if (chosen && !expanded && current) {
    const check = current.check;
    return (
      <section className="model-status" aria-label="The model agents use">
        <p>
          <span>
            Agents use <strong>{modelTitle(current)}</strong>
            {current.name === "local" && " (small, for trying things)"}
            {check ? `: it ${checkWords(check).join(" · ")}.` : checking ? " — asking it what it can do…" : "."}
          </span>
          <button type="button" className="link-button" onClick={() => setExpanded(true)}>
            Change
          </button>
        </p>
      </section>
    );
  }

  const toggle = (next: Way) => setWay(way === next ? null : next);
  const demoInUse = demo && current?.name === "local";
  return (
    <section className="model-choice" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="start-section">
        First, choose a model for your agents
      </h2>
      <p className="model-choice-help">A model writes each agent's replies. Pick one way; you can change it any time in Settings.</p>
      <div className="ways">
        <div className="way">
          <h3>Try the built-in demo model</h3>
          <p>Small, for trying things. It runs on this computer: no key, no account.</p>
          <button type="button" className="primary" onClick={() => void choose("local")} disabled={busy || demoInUse}>
            {demoInUse ? "In use" : "Use the demo model"}
          </button>
        </div>
        <div className={`way${way === "server" ? " open" : ""}`}>
          <h3>Use a model server on this computer</h3>
          <p>Ollama, LM Studio, llama.cpp's server and others, when one is running here.</p>
          <button type="button" aria-expanded={way === "server"} aria-controls={`${id}-panel`} onClick={() => toggle("server")}>
            Look for servers
          </button>
        </div>
        <div className={`way${way === "key" ? " open" : ""}`}>
          <h3>Use a provider key</h3>
          <p>OpenAI, Anthropic, OpenRouter, or any server that speaks OpenAI's protocol.</p>
          <button type="button" aria-expanded={way === "key"} aria-controls={`${id}-panel`} onClick={() => toggle("key")}>
            Enter a key
          </button>
        </div>
      </div>
      {way && (
        <div className="way-panel" id={`${id}-panel`} role="region" aria-label={way === "server" ? "Model servers on this computer" : "A provider key"}>
          {way === "server" ? <FoundServers onUsed={used} /> : <KeyForm onUsed={used} />}
        </div>
      )}
      {own.length > 0 && !modelChosen(models) && (
        <p className="model-choice-own">
          Or use one you added:{" "}
          {own.map((m) => (
            <button key={m.name} type="button" className="link-button" onClick={() => void choose(m.name)} disabled={busy}>
              {m.name}
            </button>
          ))}
        </p>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {expanded && (
        <button type="button" className="link-button" onClick={() => setExpanded(false)}>
          Keep {current ? modelTitle(current) : "the model as it is"}
        </button>
      )}
    </section>
  );
}
