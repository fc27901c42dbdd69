// The left region: the crews you can open, the way back to the start view, and the
// runs — past ones to replay (with the tokens each spent), and Import recording…
// to replay a run from a file.
import type { CrewSummary } from "../bindings/CrewSummary";
import type { RecentCrew } from "../bindings/RecentCrew";
import type { RunSummary } from "../bindings/RunSummary";
import type { RunStatus } from "../bindings/RunStatus";

const statusShort: Record<RunStatus, string> = {
  running: "running",
  paused: "waiting for you",
  terminated: "finished",
  completed: "finished",
  max_handoffs: "stopped at the handoff limit",
  no_route: "stopped: no route",
  signal_failure: "stopped: no signal",
  loop_detected: "stopped: a loop",
  cancelled: "stopped by you",
  failed: "failed",
};
import { runTokens } from "../run/words";
import { FileIcon, FolderIcon } from "./icons";

type Props = {
  crews: CrewSummary[] | null;
  openPath: string | null;
  onHome: () => void;
  onOpen: (path: string) => void;
  onPick: (kind: "file" | "folder") => void;
  onNew: () => void;
  onImport: () => void;
  recent: RecentCrew[];
  runs: RunSummary[];
  onOpenRun: (run: RunSummary) => void;
  onImportRecording: () => void;
  onSettings: () => void;
};

const shortName = (path: string) => path.split("/").filter(Boolean).pop() ?? path;

/** A run's line in the list: "“input” — finished · 1,234 tokens in, 321 out". */
function runTitle(run: RunSummary): string {
  const { input_tokens, output_tokens } = run.tokens;
  const spent = input_tokens + output_tokens > 0 ? ` · ${input_tokens.toLocaleString("en")} tokens in, ${output_tokens.toLocaleString("en")} out` : "";
  return `“${run.input}” — ${statusShort[run.status]}${spent}`;
}

export function Sidebar({ crews, openPath, onHome, onOpen, onPick, onNew, onImport, recent, runs, onOpenRun, onImportRecording, onSettings }: Props) {
  return (
    <nav className="sidebar" aria-label="Crews">
      <button type="button" className="brand" onClick={onHome} title="Back to the start">
        <img src="./icon.png" alt="" width={24} height={24} />
        <span>Crewgraph</span>
      </button>
      <div className="sidebar-section">Examples</div>
      <ul className="sidebar-list">
        {(crews ?? []).map((crew) => (
          <li key={crew.path}>
            <button
              type="button"
              className={`sidebar-item${crew.path === openPath ? " active" : ""}`}
              onClick={() => onOpen(crew.path)}
              title={crew.description}
            >
              <span className="sidebar-name">{crew.name}</span>
              {crew.errors > 0 && <span className="sidebar-dot error" role="img" aria-label="has errors" />}
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-section">Your crews</div>
      <div className="sidebar-actions">
        <button type="button" className="sidebar-item" onClick={onNew}>
          + New crew
        </button>
        <button type="button" className="sidebar-item" onClick={() => onPick("file")}>
          <FileIcon size={14} /> Open file…
        </button>
        <button type="button" className="sidebar-item" onClick={() => onPick("folder")}>
          <FolderIcon size={14} /> Open folder…
        </button>
        <button type="button" className="sidebar-item" onClick={onImport} title="Start a new crew from a copy of a crew file">
          <FileIcon size={14} /> Import…
        </button>
      </div>
      {recent.length > 0 && (
        <>
          <div className="sidebar-section">Recent</div>
          <ul className="sidebar-list recent-list">
            {recent.map((crew) => (
              <li key={crew.path}>
                <button
                  type="button"
                  className={`sidebar-item${crew.path === openPath ? " active" : ""}`}
                  onClick={() => onOpen(crew.path)}
                  disabled={!crew.exists}
                  title={crew.exists ? crew.path : `${crew.path} (no longer there)`}
                >
                  <span className="sidebar-name">{shortName(crew.path)}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="sidebar-section">Runs</div>
      <div className="sidebar-actions">
        <button type="button" className="sidebar-item" onClick={onImportRecording} title="Replay a run from a recording file (Export recording makes one)">
          <FileIcon size={14} /> Import recording…
        </button>
      </div>
      {runs.length > 0 && (
        <ul className="sidebar-list runs-list">
          {runs.slice(0, 12).map((run) => {
            const tokens = runTokens(run.tokens);
            return (
              <li key={run.id}>
                <button type="button" className="sidebar-item" onClick={() => onOpenRun(run)} title={runTitle(run)}>
                  <span className={`run-dot run-dot-${run.status}`} aria-hidden />
                  <span className="sidebar-run">
                    <span className="sidebar-name">
                      {run.crew_name} · {new Date(run.created_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
                    </span>
                    {tokens && <span className="sidebar-tokens">{tokens}</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="sidebar-actions sidebar-bottom">
        <button type="button" className="sidebar-item" onClick={onSettings} title="Models, API keys, the default model">
          ⚙ Settings
        </button>
      </div>
    </nav>
  );
}
