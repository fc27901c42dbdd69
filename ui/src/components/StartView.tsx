// The start view: the example crews, each with a one-line description and a
// picture of its graph, one click from opening; and a way to open your own.
import type { CrewSummary } from "../bindings/CrewSummary";
import type { Strategy } from "../bindings/Strategy";
import { FileIcon, FolderIcon } from "./icons";
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
};

export function StartView({ crews, folder, onOpen, onPick }: Props) {
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
      <h2 className="start-section">Examples</h2>
      {crews === null ? (
        <p className="muted">Loading the examples…</p>
      ) : crews.length === 0 ? (
        <p className="muted">No crews in {folder}. Open a crew file to begin.</p>
      ) : (
        <ul className="crew-cards">
          {crews.map((crew) => (
            <li key={crew.path}>
              <button type="button" className="crew-card" onClick={() => onOpen(crew.path)} data-crew={crew.file_name}>
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
            </li>
          ))}
        </ul>
      )}
      {folder && <p className="start-folder muted">Examples from {folder}</p>}
    </div>
  );
}
