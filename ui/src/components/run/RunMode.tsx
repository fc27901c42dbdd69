// Which model answers a run — each agent's own, one model for all, Simulate with
// replies from a script file (the crew's own offered first, at the pace chosen for
// the crew: run/pace.ts), or Simulate with each reply typed by the person — and, when
// a model it would ask did not answer its last check, that model named with a way on
// (check it again, or Simulate instead). One control, used by the run panel
// (RunPanel.tsx) and by "Try another reply" (ForkDialog.tsx), so a fork is run the way
// a run is; the caller keeps the choice (`RunModeChoice`) and sends `repliesOf(choice)`.
import { useEffect } from "react";
import { backend } from "../../backend";
import type { ModelView } from "../../bindings/ModelView";
import type { Pace } from "../../bindings/Pace";
import type { Replies } from "../../bindings/Replies";
import { useEditor } from "../../editor/store";
import { reloadModels, useModels } from "../../models/store";
import { explainFailure } from "../../run/errors";
import { PACE_WORDS, rememberPace } from "../../run/pace";
import { silentModels } from "../../run/silentModels";
import { useMemo, useState } from "react";

/** The model choice that means Simulate with a script (no model is named so). */
export const SIMULATE = "\u0000simulate";
/** The model choice that means Simulate with each reply typed by the person. */
export const SIMULATE_TYPED = "\u0000typed";

/** How a run's replies come: `model` is a model's name, "" (each agent's own),
 * SIMULATE or SIMULATE_TYPED; `script` and `pace` are for SIMULATE. */
export type RunModeChoice = { model: string; script: string | null; pace: Pace };

/** Where the agents' replies come from (the generated Replies: one shape for start,
 * resume and fork). */
export function repliesOf({ model, script, pace }: RunModeChoice): Replies {
  const simulate = model === SIMULATE;
  const typing = model === SIMULATE_TYPED;
  return {
    script_file: simulate && script ? script : undefined,
    typed: typing || undefined,
    model: !simulate && !typing && model ? model : undefined,
    pace: simulate && script && pace !== "instant" ? pace : undefined,
  };
}

/** Simulate mode starts with the script that comes with the crew, when there is one. */
export function useCrewScript(choice: RunModeChoice, crewPath: string | null, setScript: (script: string) => void): void {
  const simulate = choice.model === SIMULATE;
  const { script } = choice;
  // biome-ignore lint/correctness/useExhaustiveDependencies: setScript is the caller's setter
  useEffect(() => {
    if (!simulate || script || !crewPath) return;
    let current = true;
    backend.crewScripts(crewPath).then((found) => current && found[0] && setScript(found[0]), () => {});
    return () => {
      current = false;
    };
  }, [simulate, script, crewPath]);
}

const fileName = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

type RunModeProps = {
  /** A unique id for the list's label. */
  id: string;
  crewPath: string | null;
  choice: RunModeChoice;
  onChange: (choice: RunModeChoice) => void;
  disabled?: boolean;
  /** What went wrong choosing a script, in words. */
  onError: (error: string) => void;
};

export function RunMode({ id, crewPath, choice, onChange, disabled = false, onError }: RunModeProps) {
  const modelViews = useModels();
  const models = (modelViews ?? []).map((m) => m.name);
  const spec = useEditor((s) => s.spec);
  const { model, script, pace } = choice;
  const simulate = model === SIMULATE;
  const typing = model === SIMULATE_TYPED;
  // The models this run would ask that did not answer their last check.
  const silent = useMemo(() => (simulate || typing ? [] : silentModels(spec, modelViews ?? [], model)), [simulate, typing, spec, modelViews, model]);

  const chooseScript = async () => {
    try {
      const picked = await backend.pickScript();
      if (picked) onChange({ ...choice, script: picked });
    } catch (e) {
      onError(`Could not choose a script: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const choosePace = (chosen: Pace) => {
    onChange({ ...choice, pace: chosen });
    rememberPace(crewPath, chosen);
  };

  return (
    <div className="run-model">
      <label className="run-label" htmlFor={`${id}-model`}>
        Model
      </label>
      <select id={`${id}-model`} className="run-select" value={model} onChange={(e) => onChange({ ...choice, model: e.target.value })} disabled={disabled}>
        <option value="">Each agent's own model</option>
        {models.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
        <option value={SIMULATE}>Simulate (replies from a script)</option>
        <option value={SIMULATE_TYPED}>Simulate (type each reply)</option>
      </select>
      {typing && !disabled && <p className="run-note">No model answers: when an agent's turn comes, you type its reply.</p>}
      {simulate && (
        <div className="run-script">
          <button type="button" className="run-button" onClick={() => void chooseScript()} disabled={disabled}>
            Choose script…
          </button>
          <span className="run-script-name" title={script ?? undefined}>
            {script ? fileName(script) : "No script chosen"}
          </span>
        </div>
      )}
      {simulate && (
        <div className="run-pace" role="radiogroup" aria-label="How fast the replies come">
          {PACE_WORDS.map((c) => (
            <button
              key={c.pace}
              type="button"
              role="radio"
              aria-checked={pace === c.pace}
              className={`run-pace-choice${pace === c.pace ? " on" : ""}`}
              onClick={() => choosePace(c.pace)}
              disabled={disabled}
              title={c.title}
              data-pace={c.pace}
            >
              {c.label}
            </button>
          ))}
        </div>
      )}
      {!disabled && silent.length > 0 && <SilentModels silent={silent} onSimulate={() => onChange({ ...choice, model: SIMULATE })} />}
    </div>
  );
}

/** The models that did not answer their last check, before the run: why, and a way on. */
function SilentModels({ silent, onSimulate }: { silent: ModelView[]; onSimulate: () => void }) {
  const [checking, setChecking] = useState(false);
  const again = async () => {
    setChecking(true);
    try {
      for (const model of silent) await backend.checkModel(model.name).catch(() => null);
      await reloadModels();
    } finally {
      setChecking(false);
    }
  };
  const names = silent.map((m) => m.name).join(", ");
  // (What the check found, said as a failed run says it: without the provider's address.)
  const why = silent
    .map((m) => (m.check?.problem ? explainFailure(m.check.problem).headline : ""))
    .filter(Boolean)
    .join("; ");
  return (
    <div className="run-silent" role="alert">
      <p>
        <strong>{names} did not answer</strong> when {silent.length === 1 ? "it was" : "they were"} last checked{why ? `: ${why}${/[.?!]$/.test(why) ? "" : "."}` : "."} The run may fail at
        its first turn.
      </p>
      <div className="run-silent-ways">
        <button type="button" className="run-button" onClick={() => void again()} disabled={checking}>
          {checking ? "Checking…" : "Check again"}
        </button>
        <button type="button" className="run-button" onClick={onSimulate}>
          Simulate instead
        </button>
      </div>
    </div>
  );
}
