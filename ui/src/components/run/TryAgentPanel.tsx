// Try one agent (run/tryAgent.ts): a small chat with one agent alone, on the crew
// as it is edited (saved or not), before running the whole crew. The person writes;
// the agent answers on its own model, on another one, or in Simulate — where the
// person writes the agent's reply too, with its signals as chips — and under each
// reply the chat says where a run would go after it ("[QUESTION] — the work would
// go to Student"). A model that does not answer is said in the chat. Nothing is
// stored: closing the chat, or changing agent or model, starts it over.
import { useEffect, useId, useRef, useState } from "react";
import { backend } from "../../backend";
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { TryMessage } from "../../bindings/TryMessage";
import { useEditor } from "../../editor/store";
import { avatarColor, avatarLetter } from "../../graph/style";
import { useModels } from "../../models/store";
import { modelNamed } from "../../models/warnings";
import { closeTryAgent, openTryAgent, useTryAgent } from "../../run/tryAgent";
import { agentSignals, type SignalChip, SignalChips } from "./ReplyBoxes";
import { useNames } from "./useNames";
import { sendOnEnter } from "./sendOnEnter";

/** The model choice that means Simulate: the person writes the agent's replies. */
const SIMULATE = "\u0000simulate";

type Line =
  | { kind: "message"; message: TryMessage; next?: string }
  | { kind: "problem"; text: string };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function TryAgentPanel() {
  const agent = useTryAgent();
  const spec = useEditor((s) => s.spec);
  const path = useEditor((s) => s.path);
  // Another crew: the chat closes (it was about the other crew's agent).
  const opened = useRef(path);
  useEffect(() => {
    if (opened.current !== path) closeTryAgent();
    opened.current = path;
  }, [path]);
  if (!agent || !spec) return null;
  const known = spec.agents.some((a) => a.id === agent);
  return <TryChat key={agent} agent={agent} spec={spec} known={known} />;
}

function TryChat({ agent, spec, known }: { agent: string; spec: CrewSpec; known: boolean }) {
  const id = useId();
  const names = useNames();
  const document = useEditor((s) => s.document);
  const models = useModels() ?? [];
  const name = names(agent);
  const colour = avatarColor(agent);
  const [model, setModel] = useState("");
  const [lines, setLines] = useState<Line[]>([]);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const simulate = model === SIMULATE;
  const messages = lines.flatMap((l) => (l.kind === "message" ? [l.message] : []));
  // In Simulate, after the person wrote, the next thing typed is the agent's reply.
  const agentsTurn = simulate && messages.length > 0 && !messages[messages.length - 1].from_agent;
  const chips: SignalChip[] = agentsTurn ? agentSignals(document, agent) : [];
  const own = modelNamed(spec.agents.find((a) => a.id === agent)?.model, models);

  useEffect(() => {
    box.current?.focus();
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: lines is the trigger (a new line to show)
  useEffect(() => {
    const list = scroller.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [lines, busy]);

  const startOver = (nextModel = model) => {
    setModel(nextModel);
    setLines([]);
    setText("");
  };

  const send = async () => {
    const said = text.trim();
    if (!said || busy) return;
    setText("");
    if (!agentsTurn) {
      const asked: TryMessage = { from_agent: false, text: said };
      setLines((all) => [...all, { kind: "message", message: asked }]);
      if (simulate) return; // the person writes the agent's reply next
      await answer([...messages, asked], undefined);
      return;
    }
    // Simulate: the agent's reply as the person wrote it, through the same call, so
    // the chat says where a run would go after it.
    const replies = [...messages.filter((m) => m.from_agent).map((m) => m.text), said];
    await answer(messages, JSON.stringify({ replies: { [agent]: replies } }));
  };

  const answer = async (chat: TryMessage[], script: string | undefined) => {
    setBusy(true);
    try {
      const tried = await backend.tryAgent({ spec, agent, messages: chat, model: !simulate && model ? model : undefined, script });
      setLines((all) =>
        tried.problem
          ? [...all, { kind: "problem", text: tried.problem }]
          : [...all, { kind: "message", message: { from_agent: true, text: tried.reply }, next: tried.next }],
      );
    } catch (e) {
      setLines((all) => [...all, { kind: "problem", text: `No answer: ${message(e)}` }]);
    } finally {
      setBusy(false);
      box.current?.focus();
    }
  };

  const onKey = sendOnEnter(() => void send());

  const addSignal = (add: (reply: string) => string) => {
    setText(add);
    box.current?.focus();
  };

  return (
    <section
      className="try-panel"
      aria-label={`Try ${name} alone`}
      onKeyDown={(event) => {
        if (event.key === "Escape") closeTryAgent();
      }}
    >
      <header className="try-header">
        <span className="run-avatar" style={{ background: colour }} aria-hidden>
          {avatarLetter(name)}
        </span>
        <h2>Try {name} alone</h2>
        <button type="button" className="try-close" onClick={closeTryAgent} aria-label="Close the try-out chat" title="Close (Esc)">
          ×
        </button>
      </header>
      <div className="try-choices">
        <label htmlFor={`${id}-agent`}>Agent</label>
        <select id={`${id}-agent`} className="run-select" value={agent} onChange={(e) => openTryAgent(e.target.value)}>
          {spec.agents
            .filter((a) => a.id)
            .map((a) => (
              <option key={a.id} value={a.id}>
                {names(a.id ?? "")}
              </option>
            ))}
        </select>
        <label htmlFor={`${id}-model`}>Answers with</label>
        <select id={`${id}-model`} className="run-select" value={model} onChange={(e) => startOver(e.target.value)}>
          <option value="">Its own model{own ? ` (${own.name})` : ""}</option>
          {models.map((m) => (
            <option key={m.name} value={m.name}>
              {m.name}
            </option>
          ))}
          <option value={SIMULATE}>Simulate (you write its replies)</option>
        </select>
      </div>
      <div className="try-chat" ref={scroller} role="log" aria-label={`Chat with ${name}`}>
        {!known && <p className="run-error">The crew has no agent called {agent} any more.</p>}
        {lines.length === 0 && known && (
          <p className="run-empty">
            {simulate
              ? `Write what you say to ${name}, then what ${name} answers: the chat shows where a run would go after that reply.`
              : `Write to ${name} as the crew's input or another agent would. ${name} answers alone, with its own instructions; nothing is saved.`}
          </p>
        )}
        {lines.map((line, i) =>
          line.kind === "problem" ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the chat only grows; a line's place is its identity
            <p key={i} className="try-problem" role="alert">
              {line.text}
            </p>
          ) : line.message.from_agent ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the chat only grows
            <div key={i} className="try-agent" style={{ borderLeftColor: colour }}>
              <div className="run-you-label">{name}</div>
              <p className="run-text">{line.message.text}</p>
              {line.next && <p className="try-next">Then: {line.next}</p>}
            </div>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: the chat only grows
            <div key={i} className="run-you try-you">
              <div className="run-you-label">You</div>
              <p className="run-text">{line.message.text}</p>
            </div>
          ),
        )}
        {busy && (
          <p className="run-note try-busy">
            {name} is writing
            <span className="run-typing" aria-hidden>
              <span />
              <span />
              <span />
            </span>
          </p>
        )}
      </div>
      <div className="try-write">
        <label htmlFor={`${id}-text`} className="run-label">
          {agentsTurn ? `What does ${name} say?` : `Write to ${name}`}
        </label>
        <textarea
          id={`${id}-text`}
          ref={box}
          className="run-input"
          rows={2}
          value={text}
          placeholder={agentsTurn ? `${name}'s reply. Enter sends.` : "Enter sends, Shift+Enter starts a new line."}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          disabled={!known}
        />
        <div className="run-reply-row">
          <SignalChips chips={chips} name={name} onAdd={addSignal} />
          <button type="button" className="run-button" onClick={() => startOver()} disabled={lines.length === 0 || busy}>
            Start over
          </button>
          <button type="button" className="run-button primary" onClick={() => void send()} disabled={busy || !text.trim() || !known}>
            Send
          </button>
        </div>
      </div>
    </section>
  );
}
