// The problems list: every error and warning in plain words, with the exact text
// and its place in the file; clicking one selects what it is about on the canvas.
import { useEffect, useState } from "react";
import { type ShownProblem, problemSummary } from "../graph/problems";
import { AlertIcon, CheckIcon, ErrorIcon } from "./icons";

export function ProblemsPanel({ problems, onSelect }: { problems: ShownProblem[]; onSelect: (id: string) => void }) {
  // Open when there is something to fix; "No problems" needs no room of its own.
  const [open, setOpen] = useState(problems.length > 0);
  const any = problems.length > 0;
  useEffect(() => {
    if (any) setOpen(true);
  }, [any]);
  const errors = problems.some((p) => p.diagnostic.severity === "error");
  return (
    <section className={`problems-panel${open ? " open" : ""}`} aria-label="Problems">
      <button type="button" className="problems-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
        {problems.length === 0 ? <CheckIcon size={14} /> : errors ? <ErrorIcon size={14} /> : <AlertIcon size={14} />}
        <span>Problems · {problemSummary(problems)}</span>
        <span className="toggle-hint">{open ? "Hide" : "Show"}</span>
      </button>
      {open && (
        <ul className="problems-list">
          {problems.length === 0 && <li className="problem-none">Nothing to fix: every agent and signal checks out.</li>}
          {problems.map((problem, index) => {
            const { diagnostic, targets } = problem;
            const where = diagnostic.location
              ? `${diagnostic.location.file.split("/").pop()}:${diagnostic.location.line}:${diagnostic.location.column}`
              : "";
            const clickable = targets.length > 0;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and may repeat; the list is redrawn whole with each verdict
              <li key={index} className={`problem ${diagnostic.severity}`}>
                <button
                  type="button"
                  disabled={!clickable}
                  onClick={() => clickable && onSelect(targets[0])}
                  title={clickable ? "Show it on the graph" : undefined}
                >
                  {diagnostic.severity === "error" ? <ErrorIcon size={14} /> : <AlertIcon size={14} />}
                  <span className="problem-plain">{diagnostic.plain}</span>
                  <span className="problem-exact">
                    {where && <code>{where}</code>} {diagnostic.message}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
