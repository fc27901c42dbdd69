// The sidebar's runs: each named by what the crew was asked ("Interview me about
// colours"), with its time and how it ended, newest first; the open crew's runs
// only (or every crew's, one click away), and a search over what they were asked,
// their crews and how they ended. A run's words wrap rather than being cut off;
// its whole line is its tooltip.
import { useId, useState } from "react";
import type { RunStatus } from "../../bindings/RunStatus";
import type { RunSummary } from "../../bindings/RunSummary";
import { forkWords, nestRuns } from "../../run/forkTree";
import { useRun } from "../../run/store";
import { runTokens } from "../../run/words";
import { useForkAgents } from "./useForkAgents";
import { useNames } from "./useNames";

export const statusShort: Record<RunStatus, string> = {
  running: "running",
  paused: "waiting for you",
  terminated: "finished",
  completed: "finished",
  max_handoffs: "stopped at the transfer limit",
  no_route: "stopped: no route",
  signal_failure: "stopped: no signal",
  loop_detected: "stopped: a loop",
  cancelled: "stopped by you",
  failed: "failed",
};

/** How many runs show before "Show more". */
const SHOWN = 20;

type Props = {
  runs: RunSummary[];
  /** The crew open in the editor (null: none), and its name. */
  openPath: string | null;
  /** Each run's crew, as far as it is known (run id → path; null: not known). */
  crewOf: (run: RunSummary) => string | null | undefined;
  onOpenRun: (run: RunSummary) => void;
};

/** A run's tooltip: "“input” — finished · 1,234 tokens in, 321 out". */
export function runTitle(run: RunSummary): string {
  const { input_tokens, output_tokens } = run.tokens;
  const spent = input_tokens + output_tokens > 0 ? ` · ${input_tokens.toLocaleString("en")} tokens in, ${output_tokens.toLocaleString("en")} out` : "";
  return `“${run.input}” — ${statusShort[run.status]}${spent}`;
}

/** "10:42" today, "28 Nov 10:42" on another day. */
export function runTime(createdAt: string, now = new Date()): string {
  const at = new Date(createdAt);
  if (Number.isNaN(at.getTime())) return "";
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === now.toDateString()) return time;
  return `${at.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

/** Whether `run` is found by `query` (each word in what it was asked, its crew or
 * how it ended). */
export function runFound(run: RunSummary, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${run.input} ${run.crew_name} ${statusShort[run.status]}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

export function RunsList({ runs, openPath, crewOf, onOpenRun }: Props) {
  const id = useId();
  const [query, setQuery] = useState("");
  const [everyCrew, setEveryCrew] = useState(false);
  const [more, setMore] = useState(false);
  const onlyThisCrew = openPath !== null && !everyCrew;
  const listed = runs.filter((run) => (!onlyThisCrew || crewOf(run) === openPath) && runFound(run, query));
  // (A fork under the run it came from, indented: run/forkTree.ts.)
  const shown = nestRuns(more ? listed : listed.slice(0, SHOWN));
  const forkedAt = useForkAgents(shown.map((n) => n.run));
  const names = useNames();
  const current = useRun((s) => s.view?.runId ?? null);
  const now = new Date();
  return (
    <div className="runs">
      {runs.length > 0 && (
        <div className="runs-find">
          <input
            id={`${id}-search`}
            aria-label="Search runs"
            type="search"
            className="runs-search"
            placeholder="Search runs"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
          {openPath !== null && (
            <div className="runs-which" role="radiogroup" aria-label="Whose runs">
              <button type="button" role="radio" aria-checked={!everyCrew} className={everyCrew ? "" : "on"} onClick={() => setEveryCrew(false)}>
                This crew
              </button>
              <button type="button" role="radio" aria-checked={everyCrew} className={everyCrew ? "on" : ""} onClick={() => setEveryCrew(true)}>
                All crews
              </button>
            </div>
          )}
        </div>
      )}
      {runs.length > 0 && listed.length === 0 && (
        <p className="runs-none">
          {query.trim() ? `No run matches “${query.trim()}”.` : "No runs of this crew yet: write what it should do in the run panel and press Run."}
        </p>
      )}
      {shown.length > 0 && (
        <ul className="sidebar-list runs-list">
          {shown.map(({ run, depth }) => {
            const tokens = runTokens(run.tokens);
            return (
              <li key={run.id} className={depth ? "run-fork" : undefined} style={depth ? { marginLeft: depth * 12 } : undefined}>
                <button
                  type="button"
                  className={`sidebar-item${run.id === current ? " active" : ""}`}
                  onClick={() => onOpenRun(run)}
                  title={runTitle(run)}
                  data-run={run.id}
                  aria-current={run.id === current ? "true" : undefined}
                >
                  <span className={`run-dot run-dot-${run.status}`} aria-hidden />
                  <span className="sidebar-run">
                    <span className="sidebar-run-input">{run.input.trim() || "(no input)"}</span>
                    {run.forked_from && <span className="sidebar-run-fork">{forkWords(forkedAt[run.id], names)}</span>}
                    <span className="sidebar-run-when">
                      {runTime(run.created_at, now)} · {statusShort[run.status]}
                      {run.crew_revision !== undefined && ` · revision ${run.crew_revision}`}
                      {!onlyThisCrew && ` · ${run.crew_name}`}
                    </span>
                    {tokens && <span className="sidebar-tokens">{tokens}</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {!more && listed.length > SHOWN && (
        <button type="button" className="sidebar-item runs-more" onClick={() => setMore(true)}>
          Show {listed.length - SHOWN} more
        </button>
      )}
    </div>
  );
}
