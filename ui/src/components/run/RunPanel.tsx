// The run panel (UX.md, the bottom region's left): what the crew should do, Run /
// Stop / Resume, and which model answers — each agent's own, one model for all,
// Simulate with replies from a script file, or Simulate with each reply typed by
// the person (then, while the run goes on, each agent whose turn it is gets a reply
// box here instead of the input) — chosen with RunMode, as a fork's rest is. A scripted run goes at the pace chosen for the
// crew (run/pace.ts): at once, as a model would write, or step by step, each turn
// waiting for Next. When the crew waits for the person, the box asks for their
// answer and Resume sends it; paused before an agent's turn (a card marked "pauses
// here": run/breakpoints.ts, sent with the run), PauseBeforeCard shows what the agent
// is about to be given and the ways on. A model that did not answer its last check is named
// before the run starts, with a way on (check it again, or Simulate instead). A run
// the start view asked for (launch.ts) is taken when the panel appears and started
// as soon as the crew can run.
// Calls the backend through runActions and shows its errors in plain words, inline.
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import type { Pace } from "../../bindings/Pace";
import type { Replies } from "../../bindings/Replies";
import type { ToolDecision } from "../../bindings/ToolDecision";
import { rememberedPace } from "../../run/pace";
import type { RunView } from "../../run/reducer";
import { useRun } from "../../run/store";
import { ReplyBoxes } from "./ReplyBoxes";
import { RunMode, type RunModeChoice, repliesOf, SIMULATE, SIMULATE_TYPED, useCrewScript } from "./RunMode";
import { type Launch, takeLaunch } from "./launch";
import { ApprovalCard } from "./ApprovalCard";
import { chosenBreakpoints, type GoOn, goOnRequest, resumeBreakpoints, setBreakpoints, startBreakpoints } from "../../run/breakpoints";
import { runStore } from "../../run/store";
import { PauseBeforeCard } from "./PauseBeforeCard";
import { approveToolCall, catchUp, resumeRun, startRun, stepRun, stopRun } from "./runActions";
import { useNames } from "./useNames";

export { SIMULATE, SIMULATE_TYPED } from "./RunMode";

type RunPanelProps = {
  /** The crew's file; null while it was never saved. */
  crewPath: string | null;
  /** False while the crew has errors. */
  crewValid: boolean;
  /** The crew has edits not saved yet (a run uses the saved file). */
  unsaved?: boolean;
};

type Busy = "starting" | "stopping" | "resuming" | null;

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
  const [pace, setPace] = useState<Pace>(() => rememberedPace(crewPath));
  const [script, setScript] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const [launch, setLaunch] = useState<Launch | null>(null);

  const runId = useRun((s) => s.view?.runId ?? "");
  const status = useRun((s) => s.view?.status ?? null);
  const pausedAt = useRun((s) => s.view?.paused ?? null);
  const approval = useRun((s) => s.view?.approval ?? null);
  const ended = useRun((s) => s.ended);
  const replaying = useRun((s) => s.replay !== null);
  const typedRun = useRun((s) => s.typed);
  // The pace the run shown comes from its script at: Next is for a run at "step".
  const runPace = useRun((s) => s.pace);
  const nextFor = useRun((s) => waitingTurns(s.view));

  const live = !replaying && status === "running" && ended === null;
  const paused = !replaying && status === "paused";
  // Paused at a tool call the person is to allow, not for an answer.
  const approving = paused && approval !== null;
  // Paused before an agent's turn, as the person asked.
  const atBreak = paused && !approving && pausedAt?.breakpoint === true;
  const interrupted = !replaying && status === "running" && (ended === "interrupted" || ended === "finished");
  const lagged = !replaying && ended === "lagged";
  const simulate = model === SIMULATE;
  // The person types the replies of the run going on: boxes instead of the input.
  const replying = live && typedRun && runId !== "";

  // Each crew at its own pace.
  useEffect(() => {
    setPace(rememberedPace(crewPath));
  }, [crewPath]);

  // A run that takes typed replies, or comes from a script (one caught up on after a
  // reload, or shown again on its crew), shows the mode it runs in, so Resume goes on
  // in it.
  useEffect(() => {
    if (typedRun) setModel(SIMULATE_TYPED);
  }, [typedRun]);
  useEffect(() => {
    if (runPace) {
      setModel(SIMULATE);
      setPace(runPace);
    }
  }, [runPace]);

  // A run the start view asked for: shown here, started below once the crew can run.
  useEffect(() => {
    const taken = takeLaunch(crewPath);
    if (!taken) return;
    setInput(taken.input);
    setModel(taken.simulate ? SIMULATE : "");
    setLaunch(taken);
  }, [crewPath]);

  // Simulate mode starts with the script that comes with the crew, when there is one.
  useCrewScript({ model, script, pace }, crewPath, setScript);

  // Stop stays pressed until the run has ended.
  useEffect(() => {
    if (!live && busy === "stopping") setBusy(null);
  }, [live, busy]);

  // A pause moves focus to the answer box (UX.md).
  const pauseSeq = paused && !approving ? (pausedAt?.seq ?? -1) : null;
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
  const canResume = busy === null && ((paused && !approving && answer.trim() !== "") || interrupted) && runId !== "";

  /** Where the agents' replies come from (the generated Replies: one shape for start and resume). */
  const options = (): Replies => repliesOf({ model, script, pace });
  const stepping = live && runPace === "step";

  const run = async () => {
    if (!canRun || !crewPath) return;
    setLaunch(null);
    setBusy("starting");
    setError(null);
    try {
      await startRun({ crew: crewPath, input: input.trim(), ...options(), breakpoints: startBreakpoints(crewPath) });
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
      const breakpoints = resumeBreakpoints(chosenBreakpoints(crewPath), runStore.getState().view?.breakpoints ?? []);
      await resumeRun(runId, { ...(paused ? { input: answer.trim() } : {}), ...options(), ...(breakpoints ? { breakpoints } : {}) });
      setAnswer("");
    } catch (e) {
      setError(`Could not resume the run: ${message(e)}`);
    } finally {
      setBusy(null);
    }
  };

  // From a pause before an agent's turn: one turn, on, or on without pausing again.
  const goOn = async (how: GoOn, words: string) => {
    if (busy !== null || !runId) return;
    setBusy("resuming");
    setError(null);
    try {
      await resumeRun(runId, { ...goOnRequest(how, words, chosenBreakpoints(crewPath), runStore.getState().view?.breakpoints ?? []), ...options() });
      if (how === "no_pauses" && crewPath) setBreakpoints(crewPath, []);
    } catch (e) {
      setError(`Could not go on: ${message(e)}`);
    } finally {
      setBusy(null);
    }
  };

  const answerCall = async (decision: ToolDecision, reason: string) => {
    if (!approval || busy !== null || !runId) return;
    setBusy("resuming");
    setError(null);
    try {
      await approveToolCall(runId, { call_id: approval.callId, decision, reason: reason.trim() || undefined, ...options() });
    } catch (e) {
      setError(`Could not answer the tool call: ${message(e)}`);
    } finally {
      setBusy(null);
    }
  };

  const next = async () => {
    if (!runId) return;
    setError(null);
    try {
      await stepRun(runId);
    } catch (e) {
      setError(`Could not go on to the next turn: ${message(e)}`);
    }
  };

  const choose = (chosen: RunModeChoice) => {
    setModel(chosen.model);
    setScript(chosen.script);
    setPace(chosen.pace);
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
      {/* Step by step, Next is the one thing to do: first. */}
      {stepping && <NextStep waiting={nextFor} names={names} onNext={() => void next()} />}
      {approving && approval ? (
        <ApprovalCard wait={approval} names={names} busy={busy !== null} onAnswer={(decision, reason) => void answerCall(decision, reason)} />
      ) : atBreak && pausedAt ? (
        <PauseBeforeCard pause={pausedAt} names={names} busy={busy !== null} onGo={(how, words) => void goOn(how, words)} />
      ) : replying ? (
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
          title={
            approving
              ? "Allow the tool call above, or not, to go on"
              : atBreak
                ? "Go on with the buttons above"
                : paused
                ? "Send your answer and go on (Ctrl+Enter)"
                : interrupted
                  ? "Go on from the last step"
                  : "Resume is for a crew waiting for you"
          }
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
      <RunMode id={id} crewPath={crewPath} choice={{ model, script, pace }} onChange={choose} disabled={live} onError={setError} />
      {error && (
        <p className="run-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The turns waiting for Next: at work, their model asked and nothing written
 * since (their agents' ids). */
function waitingTurns(view: RunView | null): string {
  if (!view) return "";
  return view.turns
    .filter((t) => t.state === "working" && t.asking && view.agents[t.agent] === "active")
    .map((t) => t.agent)
    .join(",");
}

/** Step by step: whose turn waits, and Next. */
function NextStep({ waiting, names, onNext }: { waiting: string; names: (id: string) => string; onNext: () => void }) {
  const who = waiting ? waiting.split(",").map(names) : [];
  const button = useRef<HTMLButtonElement>(null);
  // Each turn that comes puts Next under the person's hand (Enter or Space presses it).
  useEffect(() => {
    if (waiting) button.current?.focus();
  }, [waiting]);
  return (
    <div className="run-step">
      <p className="run-note" aria-live="polite">
        {who.length === 0 ? "The turn is being written…" : `${who.join(", ")} ${who.length === 1 ? "is" : "are"} next: press Next to see ${who.length === 1 ? "its" : "their"} reply.`}
      </p>
      <button ref={button} type="button" className="run-button primary run-next" onClick={onNext} disabled={who.length === 0} title="Let the next turn come">
        Next
      </button>
    </div>
  );
}
