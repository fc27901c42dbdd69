// The problems list: every error and warning in plain words, with the exact text
// and its place in the file; clicking one selects what it is about on the canvas.
// It gives the canvas room: folded or open as the person left it (remembered), as
// tall as they dragged it (never taking the canvas under half the window), and
// while a run is shown it folds into a badge over the canvas's corner, whose click
// shows the list over the canvas.
import "./run/problems.css";
import { useEffect, useRef, useState } from "react";
import { type ShownProblem, problemSummary } from "../graph/problems";
import { clampHeight, DEFAULT_PROBLEMS_HEIGHT, MIN_PROBLEMS_HEIGHT, readLayout, rememberLayout } from "../run/layout";
import { useRun } from "../run/store";
import { AlertIcon, CheckIcon, ErrorIcon } from "./icons";
import { ResizeHandle } from "./run/ResizeHandle";
import { usePanelRoom } from "./run/usePanelRoom";

export function ProblemsPanel({ problems, onSelect }: { problems: ShownProblem[]; onSelect: (id: string) => void }) {
  const any = problems.length > 0;
  // Open when there is something to fix (unless the person folded it); "No
  // problems" needs no room of its own.
  const [open, setOpen] = useState(() => any && readLayout().problemsOpen);
  const [wanted, setWanted] = useState(() => readLayout().problemsHeight ?? DEFAULT_PROBLEMS_HEIGHT);
  const panel = useRef<HTMLElement>(null);
  const room = usePanelRoom(panel, MIN_PROBLEMS_HEIGHT);
  const runShown = useRun((s) => s.view !== null);
  const [peek, setPeek] = useState(false);
  const hadAny = useRef(any);
  useEffect(() => {
    // New problems unfold it, unless the person folded it away.
    if (any && !hadAny.current && readLayout().problemsOpen) setOpen(true);
    hadAny.current = any;
  }, [any]);
  useEffect(() => {
    if (!runShown) setPeek(false);
  }, [runShown]);
  const errors = problems.some((p) => p.diagnostic.severity === "error");
  const icon = problems.length === 0 ? <CheckIcon size={14} /> : errors ? <ErrorIcon size={14} /> : <AlertIcon size={14} />;

  const fold = (next: boolean) => {
    setOpen(next);
    rememberLayout({ problemsOpen: next });
  };

  if (runShown) {
    // A run is shown: the list folds into a badge, so the canvas keeps its room.
    if (!any) return null;
    return (
      <section className={`problems-badge${errors ? " error" : " warning"}`} aria-label="Problems">
        <button type="button" className="problems-badge-button" aria-expanded={peek} onClick={() => setPeek(!peek)} title={peek ? "Hide the problems" : "Show the problems"}>
          {icon}
          <span>{problemSummary(problems)}</span>
        </button>
        {peek && <ProblemList problems={problems} onSelect={onSelect} />}
      </section>
    );
  }

  const height = clampHeight(wanted, MIN_PROBLEMS_HEIGHT, room);
  return (
    <section ref={panel} className={`problems-panel${open ? " open" : ""}`} aria-label="Problems">
      {open && any && (
        <ResizeHandle
          label="the problems list"
          height={height}
          min={MIN_PROBLEMS_HEIGHT}
          max={Number.isFinite(room) ? room : height}
          onResize={(h) => setWanted(clampHeight(h, MIN_PROBLEMS_HEIGHT, room))}
          onDone={(h) => rememberLayout({ problemsHeight: clampHeight(h, MIN_PROBLEMS_HEIGHT, room) })}
          onReset={() => {
            setWanted(DEFAULT_PROBLEMS_HEIGHT);
            rememberLayout({ problemsHeight: null });
          }}
        />
      )}
      <button type="button" className="problems-toggle" onClick={() => fold(!open)} aria-expanded={open}>
        {icon}
        <span>Problems · {problemSummary(problems)}</span>
        <span className="toggle-hint">{open ? "Hide" : "Show"}</span>
      </button>
      {open && <ProblemList problems={problems} onSelect={onSelect} style={any ? { maxHeight: height } : undefined} />}
    </section>
  );
}

type ListProps = { problems: ShownProblem[]; onSelect: (id: string) => void; style?: React.CSSProperties };

function ProblemList({ problems, onSelect, style }: ListProps) {
  return (
    <ul className="problems-list" style={style}>
      {problems.length === 0 && <li className="problem-none">Nothing to fix: every agent and signal checks out.</li>}
      {problems.map((problem, index) => {
        const { diagnostic, targets } = problem;
        const where = diagnostic.location ? `${diagnostic.location.file.split("/").pop()}:${diagnostic.location.line}:${diagnostic.location.column}` : "";
        const clickable = targets.length > 0;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and may repeat; the list is redrawn whole with each verdict
          <li key={index} className={`problem ${diagnostic.severity}`}>
            <button type="button" disabled={!clickable} onClick={() => clickable && onSelect(targets[0])} title={clickable ? "Show it on the graph" : undefined}>
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
  );
}
