// The run panel (UX.md, the bottom region's left): what the crew should do, Run /
// Stop / Resume, and which model answers — each agent's own, one model for all,
// Simulate with replies from a script file, or Simulate with each reply typed by
// the person (then, while the run goes on, each agent whose turn it is gets a reply
// box here instead of the input). When the crew waits for the person, the box asks
// for their answer and Resume sends it. A run the start view asked for (launch.ts)
// is taken when the panel appears and started as soon as the crew can run. Calls
// the backend through runActions and shows its errors in plain words, inline.
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { backend } from "../../backend";
import type { Replies } from "../../bindings/Replies";
import { useModels } from "../../models/store";
import { useRun } from "../../run/store";
import { ReplyBoxes } from "./ReplyBoxes";
import { type Launch, takeLaunch } from "./launch";
import { catchUp, resumeRun, startRun, stopRun } from "./runActions";
import { useNames } from "./useNames";

/** The model choice that means Simulate with a script (no model is named so). */
export const SIMULATE = "\u0000simulate";
/** The model choice that means Simulate with each reply typed by the person. */
export const SIMULATE_TYPED = "\u0000typed";

type RunPanelProps = {
  /** The crew's file; null while it was never saved. */
  crewPath: string | null;
  /** False while the crew has errors. */
  crewValid: boolean;
  /** The crew has edits not saved yet (a run uses the saved file). */
  unsaved?: boolean;
};

type Busy = "starting" | "stopping" | "resuming" | null;

const fileName = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

function message(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message);
  return String(error);
}

export function RunPanel({ crewPath, crewValid, unsaved = false }: RunPanelProps) {
  const id = useId();
  const names = useNames();
  const box = useRef<HTMLTextAreaElement>(null);
  const [input, setInput] = useState("");
  const [answer, setAnswer] = useState("");
  const [model, setModel] = useState("");
  const models = (useModels() ?? []).map((m) => m.name);
  const [script, setScript] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const [launch, setLaunch] = useState<Launch | null>(null);

  const runId = useRun((s) => s.view?.runId ?? "");
  const status = useRun((s) => s.view?.status ?? null);
  const pausedAt = useRun((s) => s.view?.paused ?? null);
  const ended = useRun((s) => s.ended);
  const replaying = useRun((s) => s.replay !== null);
  const typedRun = useRun((s) => s.typed);

  const live = !replaying && status === "running" && ended === null;
  const paused = !replaying && status === "paused";
  const interrupted = !replaying && status === "running" && (ended === "interrupted" || ended === "finished");
  const lagged = !replaying && ended === "lagged";
  const simulate = model === SIMULATE;
  const typing = model === SIMULATE_TYPED;
  // The person types the replies of the run going on: boxes instead of the input.
  const replying = live && typedRun && runId !== "";

  // A run that takes typed replies (one caught up on after a reload, say) shows the
  // mode it runs in, so Resume goes on in it.
  useEffect(() => {
    if (typedRun) setModel(SIMULATE_TYPED);
  }, [typedRun]);

  // A run the start view asked for: shown here, started below once the crew can run.
  useEffect(() => {
    const taken = takeLaunch(crewPath);
    if (!taken) return;
    setInput(taken.input);
    setModel(taken.simulate ? SIMULATE : "");
    setLaunch(taken);
  }, [crewPath]);

  // Simulate mode starts with the script that comes with the crew, when there is one.
  useEffect(() => {
    if (!simulate || script || !crewPath) return;
    let current = true;
    backend.crewScripts(crewPath).then((found) => current && found[0] && setScript(found[0]), () => {});
    return () => {
      current = false;
    };
  }, [simulate, script, crewPath]);

  // Stop stays pressed until the run has ended.
  useEffect(() => {
    if (!live && busy === "stopping") setBusy(null);
  }, [live, busy]);

  // A pause moves focus to the answer box (UX.md).
  const pauseSeq = paused ? (pausedAt?.seq ?? -1) : null;
  useEffect(() => {
    if (pauseSeq !== null) box.current?.focus();
  }, [pauseSeq]);

  const runBlocked: string | null = live
    ? "A run is going on."
    : !crewPath
      ? "Save the crew first: a run uses the saved file."
      : !crewValid
        ? "Fix the crew's problems first (they are listed under the graph)."
        : !input.trim()
          ? "Write what the crew should do."
          : simulate && !script
            ? "Choose a script with the agents' replies."
            : null;
  const canRun = runBlocked === null && busy === null;
  const canStop = live && runId !== "" && busy !== "stopping";
  const canResume = busy === null && ((paused && answer.trim() !== "") || interrupted) && runId !== "";

  /** Where the agents' replies come from (the generated Replies: one shape for start and resume). */
  const options = (): Replies => ({
    script_file: simulate && script ? script : undefined,
    typed: typing || undefined,
    model: !simulate && !typing && model ? model : undefined,
  });

  const run = async () => {
    if (!canRun || !crewPath) return;
    setLaunch(null);
    setBusy("starting");
    setError(null);
    try {
      await startRun({ crew: crewPath, input: input.trim(), ...options() });
    } catch (e) {
      setError(`Could not start the run: ${message(e)}`);
    } finally {
      setBusy(null);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: run is this render's, with the launch's input and mode in it
  useEffect(() => {
    if (launch && canRun) void run();
  }, [launch, canRun]);

  const stop = async () => {
    if (!canStop) return;
    setBusy("stopping");
    setError(null);
    try {
      await stopRun(runId);
    } catch (e) {
      setBusy(null);
      setError(`Could not stop the run: ${message(e)}`);
    }
  };

  const resume = async () => {
    if (!canResume) return;
    setBusy("resuming");
    setError(null);
    try {
      await resumeRun(runId, { ...(paused ? { input: answer.trim() } : {}), ...options() });
      setAnswer("");
    } catch (e) {
      setError(`Could not resume the run: ${message(e)}`);
    } finally {
      setBusy(null);
    }
  };

  const chooseScript = async () => {
    setError(null);
    try {
      const picked = await backend.pickScript();
      if (picked) setScript(picked);
    } catch (e) {
      setError(`Could not choose a script: ${message(e)}`);
    }
  };

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void (paused ? resume() : run());
    }
  };

  const waitingFor = pausedAt ? names(pausedAt.agent) : null;
  const label = paused ? `The crew is waiting for you${waitingFor ? `: ${waitingFor}` : ""}` : "What should the crew do?";

  return (
    <div className={`run-panel${paused ? " waiting" : ""}`}>
      {replying ? (
        <ReplyBoxes runId={runId} />
      ) : (
        <>
          <label className="run-label" htmlFor={`${id}-input`}>
            {label}
          </label>
          <textarea
            id={`${id}-input`}
            ref={box}
            className="run-input"
            rows={3}
            value={paused ? answer : input}
            placeholder={paused ? "Your answer" : "For example: give me a short exam on fractions"}
            onChange={(e) => (paused ? setAnswer(e.target.value) : setInput(e.target.value))}
            onKeyDown={onKey}
            disabled={live}
          />
        </>
      )}
      <div className="run-buttons">
        <button type="button" className="run-button primary" onClick={() => void run()} disabled={!canRun} title={runBlocked ?? "Run the crew (Ctrl+Enter)"}>
          {busy === "starting" ? "Starting…" : "Run"}
        </button>
        <button type="button" className="run-button" onClick={() => void stop()} disabled={!canStop} title="Stop the run">
          {busy === "stopping" ? "Stopping…" : "Stop"}
        </button>
        <button
          type="button"
          className={`run-button${paused ? " primary" : ""}`}
          onClick={() => void resume()}
          disabled={!canResume}
          title={paused ? "Send your answer and go on (Ctrl+Enter)" : interrupted ? "Go on from the last step" : "Resume is for a crew waiting for you"}
        >
          {busy === "resuming" ? "Resuming…" : "Resume"}
        </button>
      </div>
      {runBlocked && !live && !paused && (
        <p className="run-note" id={`${id}-why`}>
          {runBlocked}
        </p>
      )}
      {unsaved && crewPath && !live && <p className="run-note">Runs the crew as last saved. Save to run your changes.</p>}
      {interrupted && <p className="run-note">This run stopped before it finished. Resume goes on from its last step.</p>}
      {lagged && (
        <p className="run-note">
          Some of the run's events did not reach the window.{" "}
          <button type="button" className="run-link" onClick={() => void catchUp()}>
            Show them
          </button>
        </p>
      )}
      <div className="run-model">
        <label className="run-label" htmlFor={`${id}-model`}>
          Model
        </label>
        <select id={`${id}-model`} className="run-select" value={model} onChange={(e) => setModel(e.target.value)} disabled={live}>
          <option value="">Each agent's own model</option>
          {models.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
          <option value={SIMULATE}>Simulate (replies from a script)</option>
          <option value={SIMULATE_TYPED}>Simulate (type each reply)</option>
        </select>
        {typing && !live && <p className="run-note">No model answers: when an agent's turn comes, you type its reply.</p>}
        {simulate && (
          <div className="run-script">
            <button type="button" className="run-button" onClick={() => void chooseScript()} disabled={live}>
              Choose script…
            </button>
            <span className="run-script-name" title={script ?? undefined}>
              {script ? fileName(script) : "No script chosen"}
            </span>
          </div>
        )}
      </div>
      {error && (
        <p className="run-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
