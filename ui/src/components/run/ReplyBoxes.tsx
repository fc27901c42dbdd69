// Simulate mode by hand (DESIGN.md §9): while a run goes on with typed replies, each
// agent whose turn it is — at work, nothing written yet; every member of a parallel
// group at once — gets a box under its name and avatar colour ("What does Host
// say?"), its own signals as chips that add the signal to the reply, and Send
// (Enter sends, Shift+Enter starts a new line). A line signal's chip (a signal
// matched by a pattern, `READY_FOR_REVIEW: <id>`) asks for its payload and adds the
// line it makes (`READY_FOR_REVIEW: T-42`) on a line of its own. The reply then
// streams into the transcript like any other and its signal is matched as usual.
// What the backend refuses is said in the box, in words.
import { type FormEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import type { Behavior } from "../../bindings/Behavior";
import type { CrewDocument } from "../../bindings/CrewDocument";
import { useEditor } from "../../editor/store";
import { avatarColor, avatarLetter, behaviorColor, behaviorWords } from "../../graph/style";
import { type LineTemplate, lineMatches, lineTemplate, withLine, writeLine } from "../../run/lineSignals";
import type { RunView } from "../../run/reducer";
import { useRun } from "../../run/store";
import { typeReply } from "./runActions";
import { useNames } from "./useNames";
import { agentNodeId } from "../../graph/refs";
import { sendOnEnter } from "./sendOnEnter";

/** A signal an agent may send, as a chip under its reply box. */
export type SignalChip = {
  signal: string;
  behavior: Behavior;
  description: string | null;
  /** A line signal's pattern (null: a signal written as its name, `[DONE]`). */
  pattern?: string | null;
  /** A line signal's line, as words and a payload (null: too rich a pattern to
   * write for the person, who writes the whole line). */
  line?: LineTemplate | null;
};

/** What a chip shows: the signal, or the line a line signal writes ("READY_FOR_REVIEW: …"). */
export function chipLabel(chip: SignalChip): string {
  if (!chip.pattern) return chip.signal;
  if (!chip.line) return `${chip.signal}…`;
  return chip.line.payload ? `${chip.line.before}…${chip.line.after}` : chip.line.before;
}

/** The signals an agent's reply can carry: the signal arrows leaving its card, each
 * signal once, in the graph's order — line signals (matched by a pattern) with the
 * line they make. */
export function agentSignals(document: CrewDocument | null, agent: string): SignalChip[] {
  if (!document) return [];
  const patterns = new Map(document.signals.filter((s) => s.pattern !== null).map((s) => [s.name, s.pattern as string]));
  const chips: SignalChip[] = [];
  for (const edge of document.graph.edges) {
    if (edge.kind !== "signal" || edge.source !== agentNodeId(agent) || !edge.signal) continue;
    if (chips.some((c) => c.signal === edge.signal)) continue;
    const chip: SignalChip = { signal: edge.signal, behavior: edge.behavior ?? "route", description: edge.description };
    const pattern = patterns.get(edge.signal);
    if (pattern !== undefined) Object.assign(chip, { pattern, line: lineTemplate(pattern) });
    chips.push(chip);
  }
  return chips;
}

/** The reply with `signal` added at its end (after a space). */
export function withSignal(reply: string, signal: string): string {
  const kept = reply.trimEnd();
  return kept ? `${kept} ${signal}` : signal;
}

/** The turns waiting for the person's reply, as "id:agent" joined by commas (a
 * string, so the selector's answer only changes when the turns waiting do). */
function waitingKey(view: RunView | null): string {
  if (!view) return "";
  return view.turns
    .filter((t) => t.state === "working" && t.text === "" && view.agents[t.agent] === "active")
    .map((t) => `${t.id}:${t.agent}`)
    .join(",");
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function ReplyBoxes({ runId }: { runId: string }) {
  const key = useRun((s) => waitingKey(s.view));
  const document = useEditor((s) => s.document);
  const names = useNames();
  const waiting = useMemo(
    () =>
      key
        ? key.split(",").map((entry) => {
            const at = entry.indexOf(":");
            return { id: Number(entry.slice(0, at)), agent: entry.slice(at + 1) };
          })
        : [],
    [key],
  );
  if (waiting.length === 0) {
    return <p className="run-note run-reply-idle">You type each agent's reply when its turn comes. Waiting for the next turn…</p>;
  }
  return (
    <div className="run-replies">
      {waiting.map((turn, i) => (
        <ReplyBox
          key={turn.id}
          runId={runId}
          agent={turn.agent}
          name={names(turn.agent)}
          chips={agentSignals(document, turn.agent)}
          focus={i === 0}
        />
      ))}
    </div>
  );
}

type ReplyBoxProps = { runId: string; agent: string; name: string; chips: SignalChip[]; focus: boolean };

function ReplyBox({ runId, agent, name, chips, focus }: ReplyBoxProps) {
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState("");
  const [state, setState] = useState<"typing" | "sending" | "sent">("typing");
  const [error, setError] = useState<string | null>(null);

  // Its turn came: the box is where to type (the first one, when several came at once).
  useEffect(() => {
    if (focus) box.current?.focus();
  }, [focus]);

  const send = async () => {
    const reply = text.trim();
    if (!reply || state !== "typing") return;
    setState("sending");
    setError(null);
    try {
      await typeReply(runId, agent, reply);
      setState("sent");
    } catch (e) {
      setState("typing");
      setError(`${name}'s reply was not sent: ${message(e)}`);
    }
  };

  const onKey = sendOnEnter(() => void send());

  const addSignal = (add: (reply: string) => string) => {
    setText(add);
    const field = box.current;
    if (field) {
      field.focus();
      // (After React has put the new text in: the caret goes to its end.)
      requestAnimationFrame(() => field.setSelectionRange(field.value.length, field.value.length));
    }
  };

  const colour = avatarColor(agent);
  return (
    <div className="run-reply" style={{ borderLeftColor: colour }} data-agent={agent}>
      <div className="run-reply-label">
        <span className="run-avatar" style={{ background: colour }} aria-hidden>
          {avatarLetter(name)}
        </span>
        <label htmlFor={`${id}-reply`}>What does {name} say?</label>
      </div>
      <textarea
        id={`${id}-reply`}
        ref={box}
        className="run-input run-reply-input"
        rows={2}
        value={text}
        placeholder={`${name}'s reply. Enter sends, Shift+Enter starts a new line.`}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
        disabled={state !== "typing"}
      />
      <div className="run-reply-row">
        <SignalChips chips={chips} name={name} disabled={state !== "typing"} onAdd={addSignal} />
        <button type="button" className="run-button primary run-reply-send" onClick={() => void send()} disabled={state !== "typing" || text.trim() === ""}>
          {state === "sending" ? "Sending…" : state === "sent" ? "Sent" : "Send"}
        </button>
      </div>
      {error && (
        <p className="run-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

type SignalChipsProps = {
  chips: SignalChip[];
  /** Whose signals they are (for a screen reader). */
  name: string;
  disabled?: boolean;
  /** Changes the reply: the signal (or the line) added at its end. */
  onAdd: (add: (reply: string) => string) => void;
};

/** An agent's signals as chips: a signal is added to the reply at once; a line
 * signal first asks for its payload (or, for a pattern too rich to write, the
 * whole line) and adds the line on a line of its own. */
export function SignalChips({ chips, name, disabled = false, onAdd }: SignalChipsProps) {
  const id = useId();
  const [asking, setAsking] = useState<SignalChip | null>(null);
  const [payload, setPayload] = useState("");
  const [wrong, setWrong] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (asking) field.current?.focus();
  }, [asking]);
  if (chips.length === 0) return null;

  const choose = (chip: SignalChip) => {
    if (!chip.pattern) {
      onAdd((reply) => withSignal(reply, chip.signal));
      return;
    }
    if (chip.line && !chip.line.payload) {
      const line = writeLine(chip.line);
      onAdd((reply) => withLine(reply, line));
      return;
    }
    setAsking(chip);
    setPayload("");
    setWrong(null);
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (!asking?.pattern || !payload.trim()) return;
    const line = asking.line ? writeLine(asking.line, payload) : payload.trim();
    if (!lineMatches(asking.pattern, line)) {
      setWrong(`“${line}” is not a line this signal matches (${asking.pattern}).`);
      return;
    }
    onAdd((reply) => withLine(reply, line));
    setAsking(null);
  };

  return (
    <div className="run-reply-chips" role="group" aria-label={`${name}'s signals`}>
      {chips.map((chip) => (
        <button
          key={chip.signal}
          type="button"
          className={`run-chip${asking?.signal === chip.signal ? " asking" : ""}`}
          style={{ color: behaviorColor[chip.behavior] }}
          onClick={() => choose(chip)}
          disabled={disabled}
          data-signal={chip.signal}
          title={`Add ${chip.pattern ? `the line ${chipLabel(chip)} (${chip.signal})` : chip.signal} to the reply: ${chip.description ? `${chip.description} · ` : ""}${behaviorWords[chip.behavior]}`}
        >
          {chipLabel(chip)}
        </button>
      ))}
      {asking && (
        <form className="run-payload" onSubmit={add}>
          <label htmlFor={`${id}-payload`}>{asking.line ? `What comes after ${asking.line.before.trim() || asking.signal}?` : `The line for ${asking.signal}`}</label>
          <input
            id={`${id}-payload`}
            ref={field}
            className="run-input"
            value={payload}
            placeholder={asking.line ? "for example T-42" : (asking.pattern ?? "")}
            onChange={(e) => {
              setPayload(e.target.value);
              setWrong(null);
            }}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.stopPropagation();
                setAsking(null);
              }
            }}
          />
          {asking.line?.after && <span className="run-payload-after">… then {asking.line.after.trim()}</span>}
          <button type="submit" className="run-button" disabled={!payload.trim()}>
            Add
          </button>
          <button type="button" className="run-link" onClick={() => setAsking(null)}>
            Cancel
          </button>
          {wrong && (
            <p className="run-error" role="alert">
              {wrong}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
