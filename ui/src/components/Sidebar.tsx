// The left region: the crews you can open, and the way back to the start view.
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
  onSettings: () => void;
};

const shortName = (path: string) => path.split("/").filter(Boolean).pop() ?? path;

export function Sidebar({ crews, openPath, onHome, onOpen, onPick, onNew, onImport, recent, runs, onOpenRun, onSettings }: Props) {
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
              {crew.errors > 0 && <span className="sidebar-dot error" aria-label="has errors" />}
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
      {runs.length > 0 && (
        <>
          <div className="sidebar-section">Runs</div>
          <ul className="sidebar-list runs-list">
            {runs.slice(0, 12).map((run) => (
              <li key={run.id}>
                <button type="button" className="sidebar-item" onClick={() => onOpenRun(run)} title={`“${run.input}” — ${statusShort[run.status]}`}>
                  <span className={`run-dot run-dot-${run.status}`} aria-hidden />
                  <span className="sidebar-name">
                    {run.crew_name} · {new Date(run.created_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="sidebar-actions sidebar-bottom">
        <button type="button" className="sidebar-item" onClick={onSettings} title="Models, API keys, the default model">
          ⚙ Settings
        </button>
      </div>
    </nav>
  );
}
