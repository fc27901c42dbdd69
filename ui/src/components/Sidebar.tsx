// The left region: the crews you can open, the way back to the start view, and the
// runs — the open crew's past runs named by what they were asked, searchable, to
// replay (with the tokens each spent), and Import recording… to replay a run from
// a file. In a narrow window (a small screen, 200 % zoom) it folds to a rail, so the
// crew gets the room; its button unfolds it over the window until a choice is made.
import type { CrewSummary } from "../bindings/CrewSummary";
import type { RecentCrew } from "../bindings/RecentCrew";
import type { RunSummary } from "../bindings/RunSummary";
import "./run/sidebar.css";
import { RunsList } from "./run/RunsList";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { FileIcon, FolderIcon } from "./icons";

/** Below this width (the window's, in the page's own units) the sidebar folds. */
const NARROW = 1000;

type Props = {
  crews: CrewSummary[] | null;
  openPath: string | null;
  onHome: () => void;
  onOpen: (path: string) => void;
  onPick: (kind: "file" | "folder") => void;
  onNew: () => void;
  onImport: () => void;
  /** Import CrewAI project…: a crew made from a CrewAI project's files. */
  onImportCrewAi?: () => void;
  recent: RecentCrew[];
  runs: RunSummary[];
  /** Each run's crew as far as it is known (its path; null: not known). */
  crewOf?: (run: RunSummary) => string | null | undefined;
  onOpenRun: (run: RunSummary) => void;
  onImportRecording: () => void;
  onSettings: () => void;
};

const shortName = (path: string) => path.split("/").filter(Boolean).pop() ?? path;
const unknownCrew = () => undefined;

export function Sidebar(props: Props) {
  const nav = useRef<HTMLElement>(null);
  // (The unfolded list over the window is measured by nobody: the rail keeps the place.)
  const none = useRef<HTMLElement>(null);
  const narrow = useNarrow(nav);
  const [unfolded, setUnfolded] = useState(false);
  useEffect(() => {
    if (!narrow) setUnfolded(false);
  }, [narrow]);
  // Narrow: a rail keeps the sidebar's place (the crew's room does not jump when it unfolds).
  const rail = (
    <nav ref={nav} className="sidebar folded" aria-label="Crews">
      <button type="button" className="brand" onClick={props.onHome} title="Back to the start" aria-label="Back to the start">
        <img src="./icon.png" alt="" width={24} height={24} />
      </button>
      <button type="button" className="sidebar-unfold" onClick={() => setUnfolded(!unfolded)} title="Show the crews and runs" aria-label="Show the crews and runs" aria-expanded={unfolded}>
        ☰
      </button>
      <div className="sidebar-actions sidebar-bottom">
        <button type="button" className="sidebar-item" onClick={props.onSettings} title="Settings: models, API keys, the default model" aria-label="Settings">
          ⚙
        </button>
      </div>
    </nav>
  );
  if (narrow && !unfolded) return rail;
  if (!narrow) return <SidebarList {...props} navRef={nav} />;
  // Unfolded over the window: any choice folds it again (so does Esc, or the ×).
  const fold = <A extends unknown[]>(act: (...args: A) => void) => (...args: A) => {
    setUnfolded(false);
    act(...args);
  };
  return (
    <>
      {rail}
      <SidebarList
        {...props}
        navRef={none}
        overlay={
          <button type="button" className="sidebar-fold" onClick={() => setUnfolded(false)} aria-label="Hide the crews and runs" title="Hide (Esc)">
            ×
          </button>
        }
        onEscape={() => setUnfolded(false)}
        onHome={fold(props.onHome)}
        onOpen={fold(props.onOpen)}
        onPick={fold(props.onPick)}
        onNew={fold(props.onNew)}
        onImport={fold(props.onImport)}
        onImportCrewAi={props.onImportCrewAi && fold(props.onImportCrewAi)}
        onOpenRun={fold(props.onOpenRun)}
        onImportRecording={fold(props.onImportRecording)}
        onSettings={fold(props.onSettings)}
      />
    </>
  );
}

/** Whether the window (the sidebar's parent) is narrower than NARROW. */
function useNarrow(nav: React.RefObject<HTMLElement | null>): boolean {
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const app = nav.current?.parentElement;
    if (!app) return;
    const measure = () => setNarrow(app.clientWidth > 0 && app.clientWidth < NARROW);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(app);
    return () => observer.disconnect();
  }, [nav]);
  return narrow;
}

type ListProps = Props & { navRef: React.RefObject<HTMLElement | null>; overlay?: ReactNode; onEscape?: () => void };

function SidebarList({
  crews,
  openPath,
  onHome,
  onOpen,
  onPick,
  onNew,
  onImport,
  onImportCrewAi,
  recent,
  runs,
  crewOf = unknownCrew,
  onOpenRun,
  onImportRecording,
  onSettings,
  navRef,
  overlay,
  onEscape,
}: ListProps) {
  return (
    <nav
      ref={navRef}
      className={`sidebar${overlay ? " overlay" : ""}`}
      aria-label={overlay ? "Crews and runs" : "Crews"}
      onKeyDown={(event) => {
        if (event.key === "Escape" && onEscape) onEscape();
      }}
    >
      {overlay}
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
        {onImportCrewAi && (
          <button
            type="button"
            className="sidebar-item"
            onClick={onImportCrewAi}
            title="Make a crew of a CrewAI project (its config/agents.yaml and config/tasks.yaml)"
          >
            <FolderIcon size={14} /> Import CrewAI project…
          </button>
        )}
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
      <RunsList runs={runs} openPath={openPath} crewOf={crewOf} onOpenRun={onOpenRun} />
      <div className="sidebar-actions sidebar-bottom">
        <button type="button" className="sidebar-item" onClick={onSettings} title="Models, API keys, the default model">
          ⚙ Settings
        </button>
      </div>
    </nav>
  );
}
