// A run paused before an agent's turn, because the person asked for it (a "pauses
// here" card, run/breakpoints.ts): in words, whose turn comes and what the agent is
// about to be given — its instructions (from the crew open) and the run's latest
// messages (from the run view; what it saw at an earlier turn one link away, in
// "What … saw") — a box for words it is told first, and the three ways on: one turn
// (then the run pauses before the next, whoever has it), continue, or continue
// without pausing again. Focus moves here when the pause comes (UX.md), to the box;
// Ctrl+Enter continues. The box and the ways on come first, under the title, so a
// short run panel shows them with the focus; what the agent is given follows.
import "./pauseBefore.css";
import { useEffect, useId, useRef, useState } from "react";
import { useEditor } from "../../editor/store";
import { type GoOn, runMessages, shortened } from "../../run/breakpoints";
import type { Pause } from "../../run/reducer";
import { useRun } from "../../run/store";
import { latestSeenTurn, openLatestSeen } from "./seenFromCard";
import { useFocusOnce } from "./useFocusOnce";

/** How many of the run's latest messages are shown. */
export const MESSAGES_SHOWN = 3;
/** How long a message shown may be (its whole text is in "What … saw"). */
const MESSAGE_CHARS = 280;

type Props = {
  pause: Pause;
  /** An agent's name for people. */
  names: (agent: string) => string;
  /** Goes on, with the words typed (maybe none); the card stays until the run does. */
  onGo: (how: GoOn, words: string) => void;
  busy: boolean;
};

export function PauseBeforeCard({ pause, names, onGo, busy }: Props) {
  const id = useId();
  const name = names(pause.agent);
  const [words, setWords] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  const instructions = useEditor((s) => s.spec?.agents.find((a) => a.id === pause.agent)?.system_prompt?.trim() ?? "");
  const view = useRun((s) => s.view);
  const messages = view ? runMessages(view, names) : [];
  const latest = messages.slice(-MESSAGES_SHOWN);
  // (Its earlier turn, when it had one: what it was given then.)
  const hadTurn = useRun((s) => (s.view ? latestSeenTurn(pause.agent) !== null : false));

  // Each pause starts with an empty box, and moves focus to it as soon as it can.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each pause starts with an empty box
  useEffect(() => {
    setWords("");
  }, [pause.seq]);
  useFocusOnce(box, pause.seq, !busy);

  const go = (how: GoOn) => {
    if (!busy) onGo(how, words);
  };

  return (
    <section className="run-break" aria-labelledby={`${id}-title`} data-agent={pause.agent}>
      <h3 className="run-break-title" id={`${id}-title`}>
        Paused before {name}'s turn
      </h3>
      <label className="run-label" htmlFor={`${id}-words`}>
        Tell {name} something first (optional)
      </label>
      <textarea
        id={`${id}-words`}
        ref={box}
        className="run-input run-break-words"
        rows={2}
        value={words}
        disabled={busy}
        placeholder={`Words ${name} sees before its turn`}
        onChange={(e) => setWords(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            go("continue");
          }
        }}
      />
      <div className="run-buttons run-break-ways">
        <button
          type="button"
          className="run-button primary"
          disabled={busy}
          onClick={() => go("step")}
          title={`${name} takes its turn, then the run pauses again before the next turn, whoever has it`}
        >
          Step one turn
        </button>
        <button type="button" className="run-button" disabled={busy} onClick={() => go("continue")} title="Go on, pausing again before the agents marked “pauses here” (Ctrl+Enter)">
          Continue
        </button>
        <button type="button" className="run-button" disabled={busy} onClick={() => go("no_pauses")} title="Go on to the end without pausing before any agent (the marks go from the cards)">
          Continue without pausing
        </button>
      </div>
      <p className="run-note">{name} is about to be given:</p>
      <details className="run-break-instructions">
        <summary>Its instructions</summary>
        {instructions ? <pre>{instructions}</pre> : <p className="run-note">None of its own: only what Crewgraph tells it about its signals.</p>}
      </details>
      <p className="run-break-messages-title">
        {messages.length === 0
          ? "No messages yet."
          : messages.length <= MESSAGES_SHOWN
            ? `The messages so far (${messages.length}):`
            : `The latest ${latest.length} of ${messages.length} messages:`}
      </p>
      {latest.length > 0 && (
        <ol className="run-break-messages">
          {latest.map((m) => (
            <li key={m.seq} className={m.mine ? "mine" : undefined}>
              <span className="run-break-who">{m.who}:</span> <span className="run-break-text">{shortened(m.text, MESSAGE_CHARS)}</span>
            </li>
          ))}
        </ol>
      )}
      {hadTurn && (
        <p className="run-break-seen">
          <button type="button" className="run-link" onClick={() => openLatestSeen(pause.agent)}>
            What {name} saw last time
          </button>
        </p>
      )}
    </section>
  );
}
