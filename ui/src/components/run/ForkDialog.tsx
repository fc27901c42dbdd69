// "Try another reply" (issue 18, item 3): from a turn of a run that is over (or
// replayed), a dialog to run on from there with the agent saying something else.
// The agent's reply, editable; its signals (its arrows' — agentSignals, as the reply
// boxes offer them) as one-click choices that put the signal at the end of the reply,
// in place of the one it ends with; how the rest runs, chosen as for any run
// (RunMode: the crew's model, one model, Simulate with a script or typed); and "Run
// from here". The earlier turns are taken from the stored run — no model asked, no
// tokens spent. The new run is then shown and watched as a started run is
// (runActions.forkRun). A refusal is said as the backend words it; a crew changed
// since the run offers "Run it on the version it ran" (`on_revision`). Escape, ×
// or Cancel closes it and the focus goes back to the turn's button.
import "./fork.css";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import type { Pace } from "../../bindings/Pace";
import { useEditor } from "../../editor/store";
import { avatarColor, avatarLetter } from "../../graph/style";
import { closeFork, type ForkTurn, forkRefusal, useFork, withoutEndSignal } from "../../run/fork";
import { rememberedPace } from "../../run/pace";
import { runStore, useRun } from "../../run/store";
import { Dialog } from "../Dialog";
import { agentSignals, SignalChips } from "./ReplyBoxes";
import { forkRun } from "./runActions";
import { RunMode, type RunModeChoice, repliesOf, SIMULATE, SIMULATE_TYPED, useCrewScript } from "./RunMode";
import { useNames } from "./useNames";

export function ForkView() {
  const open = useFork();
  const runId = useRun((s) => s.view?.runId ?? null);
  const shown = open !== null && open.runId === runId;
  // Another run shown (the fork itself, once it runs), or none: the dialog was about the other.
  useEffect(() => {
    if (open && !shown) closeFork();
  }, [open, shown]);
  if (!open || !shown) return null;
  return <ForkDialog key={`${open.runId}:${open.at}`} open={open} />;
}

/** How the rest runs at first: as the run shown ran, as far as the window knows —
 * typed replies, a script (at its pace), no tokens spent (Simulate) — else the
 * crew's own models. */
function firstChoice(crew: string | null): RunModeChoice {
  const { typed, pace, view } = runStore.getState();
  const simulated = pace !== null || (view !== null && view.usage.total.counted === 0);
  const chosen: Pace = pace ?? rememberedPace(crew);
  return { model: typed ? SIMULATE_TYPED : simulated ? SIMULATE : "", script: null, pace: chosen };
}

type Refusal = { text: string; onRevision: boolean };

function ForkDialog({ open }: { open: ForkTurn }) {
  const id = useId();
  const names = useNames();
  const document = useEditor((s) => s.document);
  const name = names(open.agent);
  const chips = agentSignals(document, open.agent);
  const [reply, setReply] = useState(open.reply);
  const [choice, setChoice] = useState<RunModeChoice>(() => firstChoice(open.crew));
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useCrewScript(choice, open.crew, (script) => setChoice((c) => ({ ...c, script })));

  // The reply is what to change: focused, the caret at its end.
  useEffect(() => {
    const field = box.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
  }, []);

  const blocked = !reply.trim()
    ? `Write what ${name} says instead.`
    : choice.model === SIMULATE && !choice.script
      ? "Choose a script with the agents' replies."
      : null;

  const run = async (onRevision = false) => {
    if (blocked || busy) return;
    setBusy(true);
    setRefusal(null);
    try {
      await forkRun({ id: open.runId, at: open.at, reply: reply.trim(), ...repliesOf(choice), ...(onRevision ? { on_revision: true } : {}) }, open.crew);
      // (The new run shown closes the dialog: ForkView.)
    } catch (e) {
      setRefusal(forkRefusal(e instanceof Error ? e.message : String(e)));
      setBusy(false);
    }
  };

  const addSignal = (add: (text: string) => string) => {
    setReply((text) => add(withoutEndSignal(text, chips.map((c) => c.signal))));
    const field = box.current;
    if (field) {
      field.focus();
      requestAnimationFrame(() => field.setSelectionRange(field.value.length, field.value.length));
    }
  };

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  };

  return (
    <Dialog className="fork-dialog" labelledBy={`${id}-title`} onClose={closeFork}>
      <header className="fork-header">
        <span className="run-avatar fork-avatar" style={{ background: avatarColor(open.agent) }} aria-hidden>
          {avatarLetter(name)}
        </span>
        <h2 id={`${id}-title`}>Try another reply for {name}</h2>
        <button type="button" className="fork-close" onClick={closeFork} aria-label="Close" title="Close (Esc)">
          ×
        </button>
      </header>
      <p className="dialog-help">
        A new run starts from this turn. The turns before it are taken from this run: no model is asked again and no tokens are spent. This run stays as it is.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-reply`}>
          What {name} says instead
        </label>
        <textarea id={`${id}-reply`} ref={box} className="fork-reply" rows={4} value={reply} onChange={(e) => setReply(e.target.value)} onKeyDown={onKey} />
      </div>
      {chips.length > 0 && (
        <div className="field">
          <span className="field-label">Or send another of its signals</span>
          <SignalChips chips={chips} name={name} disabled={busy} onAdd={addSignal} />
        </div>
      )}
      <fieldset className="field fork-mode">
        <legend className="field-label">How the rest runs</legend>
        <RunMode id={id} crewPath={open.crew} choice={choice} onChange={setChoice} disabled={busy} onError={(text) => setRefusal({ text, onRevision: false })} />
      </fieldset>
      {refusal && (
        <div className="fork-refusal" role="alert">
          <p>{refusal.text}</p>
          {refusal.onRevision && (
            <button type="button" className="run-button" onClick={() => void run(true)} disabled={busy}>
              Run it on the version it ran
            </button>
          )}
        </div>
      )}
      {blocked && <p className="run-note">{blocked}</p>}
      <div className="dialog-actions">
        <button type="button" onClick={closeFork}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => void run()} disabled={blocked !== null || busy} title="Run on from this turn with this reply (Ctrl+Enter)">
          {busy ? "Starting…" : "Run from here"}
        </button>
      </div>
    </Dialog>
  );
}
