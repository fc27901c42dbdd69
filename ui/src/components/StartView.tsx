// The start view: which model the agents use (the guided start while none is
// chosen: start/ModelChoice.tsx), then the example crews, each with a picture of
// its graph and one line saying what it shows, one click from opening, trying
// (Simulate with the replies that come with it: no model needed) or running on the
// chosen model; and a way to open your own.
import type { CrewSummary } from "../bindings/CrewSummary";
import type { Strategy } from "../bindings/Strategy";
import { useModels } from "../models/store";
import { defaultModel } from "../models/warnings";
import { FileIcon, FolderIcon } from "./icons";
import { ModelChoice, modelTitle } from "./start/ModelChoice";
import { Thumbnail } from "./Thumbnail";

const strategyTag: Record<Strategy, string> = {
  signals: "signals",
  scoring: "picks by score",
  llm: "router model",
  gatekeeper: "gatekeeper",
};

type Props = {
  crews: CrewSummary[] | null;
  folder: string;
  onOpen: (path: string) => void;
  onPick: (kind: "file" | "folder") => void;
  /** Opens a crew and starts a run of it at once: in Simulate mode with its own
   * script (`simulate`), or on the chosen model. */
  onLaunch: (path: string, simulate: boolean) => void;
};

export function StartView({ crews, folder, onOpen, onPick, onLaunch }: Props) {
  const models = useModels();
  const current = models ? defaultModel(models) : undefined;
  const runTitle = current ? `Open it and run it on ${modelTitle(current)}` : "Open it and run it on the chosen model";
  return (
    <div className="start-view">
      <header className="start-header">
        <h1>Design a crew of AI agents</h1>
        <p>Agents are the cards; signals are the arrows that pass the work along. Open an example to see how a crew fits together.</p>
        <div className="start-actions">
          <button type="button" className="button" onClick={() => onPick("file")}>
            <FileIcon size={16} /> Open crew file…
          </button>
          <button type="button" className="button" onClick={() => onPick("folder")}>
            <FolderIcon size={16} /> Open crew folder…
          </button>
        </div>
      </header>
      <ModelChoice />
      <h2 className="start-section">Examples</h2>
      {crews === null ? (
        <p className="muted">Loading the examples…</p>
      ) : crews.length === 0 ? (
        <p className="muted">No crews in {folder}. Open a crew file to begin.</p>
      ) : (
        <ul className="crew-cards">
          {crews.map((crew) => (
            <li key={crew.path} className="crew-example" data-crew={crew.file_name}>
              <button type="button" className="crew-card" onClick={() => onOpen(crew.path)} data-crew={crew.file_name} title="Open it to see and edit it">
                <Thumbnail graph={crew.graph} />
                <span className="crew-card-name">{crew.name}</span>
                <span className="crew-card-description">{crew.description || "No description."}</span>
                <span className="crew-card-meta">
                  <span>{crew.agents} agents</span>
                  <span>{strategyTag[crew.strategy]}</span>
                  {crew.layout === "directory" && <span>folder</span>}
                  {crew.errors > 0 && <span className="meta-error">{crew.errors} to fix</span>}
                </span>
              </button>
              {crew.errors === 0 && (
                <div className="crew-card-actions">
                  <button
                    type="button"
                    className="crew-try"
                    onClick={() => onLaunch(crew.path, true)}
                    title="Open it and play it with the replies that come with it: no model needed"
                    aria-label={`Try ${crew.name} (no model)`}
                  >
                    Try it (no model)
                  </button>
                  <button type="button" className="crew-run" onClick={() => onLaunch(crew.path, false)} title={runTitle} aria-label={`Run ${crew.name}`}>
                    Run
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {folder && <p className="start-folder muted">Examples from {folder}</p>}
    </div>
  );
}
