// Simulate mode by hand (DESIGN.md §9): while a run goes on with typed replies, each
// agent whose turn it is — at work, nothing written yet; every member of a parallel
// group at once — gets a box under its name and avatar colour ("What does Host
// say?"), its own signals as chips that add the signal to the reply, and Send
// (Enter sends, Shift+Enter starts a new line). The reply then streams into the
// transcript like any other and its signal is matched as usual. What the backend
// refuses is said in the box, in words.
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import type { Behavior } from "../../bindings/Behavior";
import type { CrewDocument } from "../../bindings/CrewDocument";
import { useEditor } from "../../editor/store";
import { avatarColor, avatarLetter, behaviorColor, behaviorWords } from "../../graph/style";
import type { RunView } from "../../run/reducer";
import { useRun } from "../../run/store";
import { typeReply } from "./runActions";
import { useNames } from "./useNames";
import { agentNodeId } from "../../graph/refs";

/** A signal an agent may send, as a chip under its reply box. */
export type SignalChip = { signal: string; behavior: Behavior; description: string | null };

/** The signals an agent's reply can carry: the signal arrows leaving its card, each
 * signal once, in the graph's order (pattern signals, matched by a regular
 * expression rather than by their name, are left out). */
export function agentSignals(document: CrewDocument | null, agent: string): SignalChip[] {
  if (!document) return [];
  const patterns = new Set(document.signals.filter((s) => s.pattern !== null).map((s) => s.name));
  const chips: SignalChip[] = [];
  for (const edge of document.graph.edges) {
    if (edge.kind !== "signal" || edge.source !== agentNodeId(agent) || !edge.signal || patterns.has(edge.signal)) continue;
    if (chips.some((c) => c.signal === edge.signal)) continue;
    chips.push({ signal: edge.signal, behavior: edge.behavior ?? "route", description: edge.description });
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

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  const addSignal = (signal: string) => {
    setText((reply) => withSignal(reply, signal));
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
        {chips.length > 0 && (
          <div className="run-reply-chips" role="group" aria-label={`${name}'s signals`}>
            {chips.map((chip) => (
              <button
                key={chip.signal}
                type="button"
                className="run-chip"
                style={{ color: behaviorColor[chip.behavior] }}
                onClick={() => addSignal(chip.signal)}
                disabled={state !== "typing"}
                title={`Add ${chip.signal} to the reply: ${chip.description ? `${chip.description} · ` : ""}${behaviorWords[chip.behavior]}`}
              >
                {chip.signal}
              </button>
            ))}
          </div>
        )}
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
