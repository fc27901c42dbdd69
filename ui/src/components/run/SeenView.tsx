// "What Teacher saw" (issue 18, item 2): one agent's turn opened from the transcript,
// the tracker or, once the run is over, its card (run/seen.ts) — what it saw, what it
// said, what it cost. A dialog over the window, with for each model call of the turn
// (tabs "1st call", "2nd call · after the tool results"): the token bar (TokenBar),
// its instructions as the model got them (the paragraph about its signals marked as
// the run's), and the messages it was shown with who wrote each, those its context
// window cut folded away under "Left out by the context window", greyed, where they
// were; then its reply and what the turn cost, from the run view. The context is
// asked of the backend (useStepContext): a turn still at work says it will show once
// over, a refusal is said as the backend words it. Earlier turn / Later turn step
// through the run's turns without closing; Escape or × closes it, and the focus goes
// back where it was.
import "./seen.css";
import { useEffect, useId, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import type { Message } from "../../bindings/Message";
import type { SeenCall } from "../../bindings/SeenCall";
import { avatarColor, avatarLetter, behaviorWords } from "../../graph/style";
import type { Turn } from "../../run/reducer";
import { closeSeen, hasContext, openSeen, type SeenTurn, turnById, useSeen } from "../../run/seen";
import {
  askedTools,
  authorOf,
  callLabel,
  cutWords,
  splitPrompt,
  toolNames,
  turnCostWords,
  type Written,
} from "../../run/seenWords";
import { useRun } from "../../run/store";
import { type Namer, signalPill, timeOf, tokenCount } from "../../run/words";
import { Dialog } from "../Dialog";
import { TokenBar } from "./TokenBar";
import { useNames } from "./useNames";
import { useStepContext } from "./useStepContext";

export function SeenView() {
  const open = useSeen();
  const runId = useRun((s) => s.view?.runId ?? null);
  const shown = open !== null && open.runId === runId;
  // Another run shown, or none: what was open was about the other run.
  useEffect(() => {
    if (open && !shown) closeSeen();
  }, [open, shown]);
  if (!open || !shown) return null;
  return <SeenDialog open={open} />;
}

function SeenDialog({ open }: { open: SeenTurn }) {
  const id = useId();
  const names = useNames();
  const live = useRun((s) => turnById(s.view, open.turn));
  const turn = live ?? open.snapshot;
  const name = names(turn.agent);
  const [earlier, later] = useRun(useShallow((s) => neighbours(s.view?.turns ?? [], open.turn)));
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
  }, []);
  const header = useRef<HTMLElement>(null);
  const narrow = useNarrow(header);
  const go = (to: Turn | null) => to && openSeen(open.runId, to);

  return (
    <Dialog className="seen-dialog" labelledBy={`${id}-title`} onClose={closeSeen}>
      <header ref={header} className={`seen-header${narrow ? " narrow" : ""}`}>
        <span className="run-avatar seen-avatar" style={{ background: avatarColor(turn.agent) }} aria-hidden>
          {avatarLetter(name)}
        </span>
        <div className="seen-heading">
          <h2 id={`${id}-title`}>What {name} saw</h2>
          <p className="seen-sub">
            Its turn at step {turn.step}
            {turn.group ? ` in ${names(turn.group)}` : ""}
            {turn.startedAt ? ` · ${timeOf(turn.startedAt)}` : ""}
          </p>
        </div>
        <div className="seen-nav" role="group" aria-label="Other turns">
          <button type="button" className="run-button" disabled={!earlier} onClick={() => go(earlier)} title={earlier ? `What ${names(earlier.agent)} saw before` : "This is the first turn"}>
            ‹ Earlier turn
          </button>
          <button type="button" className="run-button" disabled={!later} onClick={() => go(later)} title={later ? `What ${names(later.agent)} saw next` : "This is the latest turn"}>
            Later turn ›
          </button>
        </div>
        <button type="button" ref={close} className="try-close seen-close" onClick={closeSeen} aria-label="Close" title="Close (Esc)">
          ×
        </button>
      </header>
      <SeenTurnBody key={`${open.runId}/${turn.id}`} open={open} turn={turn} name={name} names={names} narrow={narrow} />
    </Dialog>
  );
}

/** The turns before and after `id` whose context can be shown. */
function neighbours(turns: readonly Turn[], id: number): [Turn | null, Turn | null] {
  const at = turns.findIndex((t) => t.id === id);
  if (at < 0) return [null, null];
  let before: Turn | null = null;
  for (let i = at - 1; i >= 0 && !before; i--) if (hasContext(turns[i])) before = turns[i];
  const after = turns.slice(at + 1).find(hasContext) ?? null;
  return [before, after];
}

/** Below this width (a small window, 200 % zoom) what it said comes first, above
 * what it was given, rather than beside it. */
const NARROW = 760;

/** Whether `element` is drawn narrower than NARROW (false until measured). Measured,
 * not a media query: the page may be zoomed while the window is not. */
function useNarrow(element: React.RefObject<HTMLElement | null>): boolean {
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const box = element.current;
    if (!box) return;
    const measure = () => setNarrow(box.clientWidth > 0 && box.clientWidth < NARROW);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, [element]);
  return narrow;
}

type BodyProps = { open: SeenTurn; turn: Turn; name: string; names: Namer; narrow: boolean };

function SeenTurnBody({ open, turn, name, names, narrow }: BodyProps) {
  const asked = useStepContext(open.runId, open.step, open.agent, hasContext(turn));
  const input = useRun((s) => s.view?.input ?? "");
  const answers = useRun(useShallow((s) => s.view?.answers.map((a) => a.input) ?? []));
  return (
    <div className={`seen-body${narrow ? " narrow" : ""}`}>
      <section className="seen-given" aria-label={`What ${name} was given`}>
        {asked.state === "waiting" ? (
          <p className="run-note">{name} is still at work: what it saw shows here once its turn is over.</p>
        ) : asked.state === "loading" ? (
          <p className="run-note">Looking up what {name} saw…</p>
        ) : asked.state === "failed" ? (
          <p className="run-error seen-error" role="alert">
            {asked.message}
          </p>
        ) : asked.context.calls.length === 0 ? (
          <p className="run-note">{name}'s model was not asked at this turn.</p>
        ) : (
          <Calls
            calls={[...asked.context.calls].sort((a, b) => a.call - b.call)}
            written={{ input, answers, names, tools: new Map() }}
          />
        )}
      </section>
      <Said turn={turn} name={name} names={names} />
    </div>
  );
}

/** The calls of the turn, as tabs when there are several. */
function Calls({ calls, written }: { calls: SeenCall[]; written: Written }) {
  const id = useId();
  const [chosen, setChosen] = useState(0);
  const index = Math.min(chosen, calls.length - 1);
  const call = calls[index];
  const shown = <CallView key={call.call} call={call} written={{ ...written, tools: toolNames(call.messages, call.cut) }} />;
  const onKey = (event: React.KeyboardEvent) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + calls.length) % calls.length;
    setChosen(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };
  return (
    <>
      {calls.length > 1 && (
        <div className="seen-tabs" role="tablist" aria-label="The model calls of this turn" onKeyDown={onKey} tabIndex={-1}>
          {calls.map((c, i) => (
            <button
              key={c.call}
              id={`${id}-tab-${i}`}
              type="button"
              role="tab"
              className="seen-tab"
              aria-selected={i === index}
              aria-controls={`${id}-panel`}
              tabIndex={i === index ? 0 : -1}
              onClick={() => setChosen(i)}
            >
              {callLabel(calls, i)}
            </button>
          ))}
        </div>
      )}
      {calls.length > 1 ? (
        <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${index}`}>
          {shown}
        </div>
      ) : (
        shown
      )}
    </>
  );
}

function CallView({ call, written }: { call: SeenCall; written: Written }) {
  const prompt = splitPrompt(call.system_prompt);
  const cut = cutWords(call);
  const [first, ...rest] = call.messages;
  return (
    <div className="seen-call">
      <TokenBar call={call} />
      <details className="seen-instructions" open>
        <summary>
          <span className="seen-h">Instructions</span>{" "}
          <span className="seen-muted">
            about {tokenCount(call.prompt_tokens)} tokens{prompt.signals ? ", with the paragraph about its signals" : ""}
          </span>
        </summary>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls is reached with Tab, so long instructions can be scrolled from the keyboard */}
        <div className="seen-prompt" tabIndex={0} role="document" aria-label="Its instructions, as its model got them">
          {prompt.own && <p className="seen-prompt-own">{prompt.own}</p>}
          {prompt.signals && (
            <p className="seen-prompt-signals" title="Crewgraph adds this paragraph from the agent's arrows: its signals and what each does">
              <span className="seen-added">Added by Crewgraph from its arrows</span>
              {prompt.signals}
            </p>
          )}
          {!prompt.own && !prompt.signals && <p className="seen-muted">(no instructions)</p>}
        </div>
      </details>
      <h3 className="seen-h seen-messages-title">
        Messages it was shown <span className="seen-muted">({call.messages.length})</span>
      </h3>
      {call.messages.length === 0 && <p className="run-note">None: it was given only its instructions.</p>}
      <ol className="seen-messages">
        {/* The context window leaves out the oldest messages after the first (the
            person's request): the cut ones are shown where they were. */}
        {first && <MessageItem message={first} written={written} />}
        {cut && (
          <li className="seen-cut">
            <details>
              <summary>
                <span className="seen-cut-title">Left out by the context window</span> <span className="seen-muted">· {cut}</span>
              </summary>
              <ol className="seen-messages seen-cut-messages" aria-label="Messages it did not see">
                {call.cut.map((message, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the messages of a stored call never change; a place is its identity
                  <MessageItem key={i} message={message} written={written} />
                ))}
              </ol>
            </details>
          </li>
        )}
        {rest.map((message, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <MessageItem key={i} message={message} written={written} />
        ))}
      </ol>
    </div>
  );
}

function MessageItem({ message, written }: { message: Message; written: Written }) {
  const author = authorOf(message, written);
  const tools = askedTools(message);
  return (
    <li className={`seen-message seen-by-${author.kind}`} style={author.kind === "agent" ? { borderLeftColor: avatarColor(author.agent) } : undefined}>
      <span className="seen-author">{author.label}</span>
      {message.content && <p className="run-text seen-text">{message.content}</p>}
      {tools && <p className="seen-tools">{tools}</p>}
    </li>
  );
}

/** What it said and what it cost, from the run view. */
function Said({ turn, name, names }: { turn: Turn; name: string; names: Namer }) {
  const cost = turnCostWords(turn);
  return (
    <section className="seen-said" aria-label={`What ${name} said and what it cost`}>
      <h3 className="seen-h">What it said</h3>
      {turn.text ? (
        <p className="run-text seen-reply">{turn.text}</p>
      ) : (
        <p className="run-text muted seen-muted">{turn.state === "working" ? "(still writing)" : "(no reply)"}</p>
      )}
      {turn.signal && (
        <span
          className={`run-signal run-signal-${turn.signal.behavior}`}
          title={`${behaviorWords[turn.signal.behavior]}${turn.signal.target ? ` (${names(turn.signal.target)})` : ""}`}
        >
          {signalPill(turn.signal)}
        </span>
      )}
      {turn.tools.length > 0 && <p className="seen-tools">Used {turn.tools.map((t) => t.name).join(", ")}</p>}
      <h3 className="seen-h">What it cost</h3>
      <p className="seen-cost">{cost ?? "Known once its turn is over."}</p>
    </section>
  );
}
