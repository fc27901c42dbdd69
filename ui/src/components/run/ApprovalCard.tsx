// A tool call the crew waits on: the person allows it (once, or for the rest of the
// run) or not, with a reason the agent is told. It cannot be missed (UX.md): focus
// moves to it when it comes, it reads as a sentence, and every choice is a button.
import { useEffect, useId, useRef, useState } from "react";
import type { ToolDecision } from "../../bindings/ToolDecision";
import type { ApprovalWait } from "../../run/reducer";
import { useFocusOnce } from "./useFocusOnce";

type Props = {
  wait: ApprovalWait;
  /** An agent's name for people. */
  names: (agent: string) => string;
  /** Sends the answer; the card stays until the run goes on. */
  onAnswer: (decision: ToolDecision, reason: string) => void;
  busy: boolean;
};

export function ApprovalCard({ wait, names, onAnswer, busy }: Props) {
  const id = useId();
  const [reason, setReason] = useState("");
  const first = useRef<HTMLButtonElement>(null);
  // A new call moves focus to its card, as soon as its buttons can take it.
  useFocusOnce(first, wait.callId, !busy);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new call starts with no reason
  useEffect(() => {
    setReason("");
  }, [wait.callId]);
  const { tool, server } = toolWords(wait.name);
  return (
    <section className="run-approval" role="alertdialog" aria-labelledby={`${id}-title`} aria-describedby={`${id}-what`}>
      <h3 className="run-approval-title" id={`${id}-title`}>
        {names(wait.agent)} wants to use “{tool}”{server ? ` from ${server}` : ""}
      </h3>
      <p className="run-note" id={`${id}-what`}>
        The crew waits until you decide. It would be asked with:
      </p>
      <dl className="run-approval-args">
        {argumentRows(wait.arguments).map(([name, value]) => (
          <div key={name} className="run-approval-arg">
            <dt>{name}</dt>
            <dd>
              <pre>{value}</pre>
            </dd>
          </div>
        ))}
      </dl>
      <div className="run-buttons">
        <button ref={first} type="button" className="run-button primary" disabled={busy} onClick={() => onAnswer("allow_once", "")}>
          Allow once
        </button>
        <button type="button" className="run-button" disabled={busy} onClick={() => onAnswer("allow_run", "")} title={`Allow ${tool} for the rest of this run`}>
          Allow for this run
        </button>
        <button type="button" className="run-button danger" disabled={busy} onClick={() => onAnswer("deny", reason)}>
          Don't allow
        </button>
      </div>
      <label className="run-label" htmlFor={`${id}-reason`}>
        Why not? (optional, told to the agent if you don't allow it)
      </label>
      <input
        id={`${id}-reason`}
        className="run-input run-approval-reason"
        value={reason}
        disabled={busy}
        onChange={(e) => setReason(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && reason.trim()) onAnswer("deny", reason);
        }}
      />
    </section>
  );
}

/** `files.write_file` → the tool "write file" from "files". */
export function toolWords(name: string): { tool: string; server: string | null } {
  const dot = name.indexOf(".");
  const [server, tool] = dot > 0 ? [name.slice(0, dot), name.slice(dot + 1)] : [null, name];
  return { tool: tool.replace(/[_-]+/g, " ").trim(), server };
}

/** Each argument as a line a person reads: its name, and its value as text (JSON for
 * anything that is not a string). */
export function argumentRows(args: unknown): [string, string][] {
  if (args === null || args === undefined) return [];
  if (typeof args !== "object" || Array.isArray(args)) return [["(arguments)", JSON.stringify(args, null, 2)]];
  return Object.entries(args as Record<string, unknown>).map(([name, value]) => [
    name,
    typeof value === "string" ? value : JSON.stringify(value, null, 2),
  ]);
}
