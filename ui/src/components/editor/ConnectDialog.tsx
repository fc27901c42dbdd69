// Drawing an edge asks what it means: which signal (picked from the registry or
// typed, checked by the engine as it is typed) and, between two agents, whether the
// work goes to one (route) or to several at once (broadcast). An edge into the End
// node finishes the run, into the Wait node waits for the person, into a group runs
// its members side by side; those say so instead of asking. A chip of the crew's
// signals chooses it (with the mouse, Enter or Space): the field takes it and keeps
// the focus, so the next Enter connects.
import { useEffect, useMemo, useRef, useState } from "react";
import { backend } from "../../backend";
import type { CrewSpec } from "../../bindings/CrewSpec";
import { connect, connectTarget, type EdgeBehavior } from "../../editor/edges";
import { editorStore, useEditor } from "../../editor/store";
import { listSignals } from "../../editor/signals";
import type { NodeRef } from "../../graph/refs";
import { behaviorColor } from "../../graph/style";
import { Dialog } from "../Dialog";

/** An edge drawn from agent `from` (its id) to node `to`, waiting for its signal. */
export type PendingConnection = { from: string; to: NodeRef };

const agentName = (spec: CrewSpec, id: string) => spec.agents.find((a) => a.id === id)?.name || id;

const nodeName = (spec: CrewSpec, node: NodeRef) => {
  const target = connectTarget(node);
  if (!target) return node.kind;
  if (target.kind === "end") return "the End";
  if (target.kind === "wait") return "Wait for you";
  if (target.kind === "group") return `the group ${target.id}`;
  return agentName(spec, target.id);
};

export function ConnectDialog({ pending, onClose }: { pending: PendingConnection; onClose: () => void }) {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const target = connectTarget(pending.to);
  const toAgent = target?.kind === "agent";
  const suggested = target?.kind === "end" ? "[DONE]" : target?.kind === "wait" ? "[WAIT]" : "";
  const [signal, setSignal] = useState(suggested);
  const [behavior, setBehavior] = useState<EdgeBehavior>(target?.kind === "group" ? "parallel" : "route");
  const [description, setDescription] = useState("");
  const [formatError, setFormatError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [confirmSelf, setConfirmSelf] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const known = useMemo(() => (spec ? listSignals(spec, document).filter((row) => !row.deprecated) : []), [spec, document]);

  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    setRefusal(null);
    setConfirmSelf(null);
    const name = signal.trim();
    if (!name) {
      setFormatError(null);
      return;
    }
    let current = true;
    const timer = window.setTimeout(() => {
      backend.checkSignalName(name).then((problem) => current && setFormatError(problem), () => {});
    }, 150);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [signal]);

  if (!spec) return null;
  const fromName = agentName(spec, pending.from);
  const toName = nodeName(spec, pending.to);

  const submit = (confirmed: boolean) => {
    const name = signal.trim();
    if (!name || formatError) return;
    const result = editorStore.getState().edit(`Connect ${fromName} to ${toName}`, (current) =>
      connect(current, { from: pending.from, to: pending.to, signal: name, behavior: toAgent ? behavior : undefined, description: description.trim() || undefined }, { confirmSelf: confirmed }),
    );
    if (result.ok) {
      onClose();
    } else if ("needsConfirmation" in result && result.needsConfirmation) {
      setConfirmSelf(result.error);
    } else {
      setRefusal(result.error);
    }
  };

  return (
    <Dialog
      className="connect-dialog"
      labelledBy="connect-title"
      onClose={onClose}
      onSubmit={(e) => {
        e.preventDefault();
        submit(false);
      }}
    >
        <h2 id="connect-title">
          Connect {fromName} → {toName}
        </h2>
        <p className="dialog-help">
          {target?.kind === "end"
            ? `When ${fromName}'s reply says this signal, the run is finished.`
            : target?.kind === "wait"
              ? `When ${fromName}'s reply says this signal, the crew stops and waits for you to answer.`
              : target?.kind === "group"
                ? `When ${fromName}'s reply says this signal, everyone in ${toName} works on it side by side.`
                : `When ${fromName}'s reply says this signal, the work goes to ${toName}.`}
        </p>
        <label className="field">
          <span className="field-label">Signal</span>
          <input
            ref={input}
            value={signal}
            onChange={(e) => setSignal(e.target.value)}
            list="known-signals"
            placeholder="[READY]"
            aria-invalid={Boolean(formatError)}
            aria-describedby="signal-help"
            name="signal"
          />
          <datalist id="known-signals">
            {known.map((row) => (
              <option key={row.name} value={row.name}>
                {row.description ?? row.behavior}
              </option>
            ))}
          </datalist>
          <span id="signal-help" className={formatError ? "field-error" : "field-help"} role={formatError ? "alert" : undefined}>
            {formatError ?? "A word in square brackets the agent writes in its reply, like [QUESTION]. Pick one or type a new one."}
          </span>
        </label>
        {known.length > 0 && (
          <div className="signal-chips" role="group" aria-label="Signals in this crew">
            {known.slice(0, 12).map((row) => (
              <button
                type="button"
                key={row.name}
                className={`signal-chip${row.name === signal.trim() ? " chosen" : ""}`}
                style={{ borderColor: behaviorColor[row.behavior as keyof typeof behaviorColor] ?? undefined }}
                aria-pressed={row.name === signal.trim()}
                onClick={() => {
                  setSignal(row.name);
                  input.current?.focus();
                }}
                title={row.description ? `${row.description} — choose it` : "Choose it"}
              >
                {row.name}
              </button>
            ))}
          </div>
        )}
        {toAgent && (
          <fieldset className="field behavior-choice">
            <legend className="field-label">The work goes</legend>
            <label>
              <input type="radio" name="behavior" checked={behavior === "route"} onChange={() => setBehavior("route")} /> to {toName} only
              (route)
            </label>
            <label>
              <input type="radio" name="behavior" checked={behavior === "broadcast"} onChange={() => setBehavior("broadcast")} /> to{" "}
              {toName} and every other agent this signal goes to, each once (broadcast)
            </label>
          </fieldset>
        )}
        <label className="field">
          <span className="field-label">What it means (optional)</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} placeholder="asks a question" name="description" />
          <span className="field-help">Shown on the arrow, so the graph reads like a sentence.</span>
        </label>
        {refusal && (
          <p className="field-error" role="alert">
            {refusal}
          </p>
        )}
        {confirmSelf && (
          <p className="field-warning" role="alert">
            {confirmSelf}{" "}
            <button type="button" className="link-button" onClick={() => submit(true)}>
              Connect it to itself anyway
            </button>
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!signal.trim() || Boolean(formatError)}>
            Connect
          </button>
        </div>
    </Dialog>
  );
}
