// The window: the crews sidebar on the left, and the start view or an opened crew.
import { useCallback, useEffect, useState } from "react";
import { backend } from "./backend";
import type { CrewDocument } from "./bindings/CrewDocument";
import type { CrewSummary } from "./bindings/CrewSummary";
import { CrewView } from "./components/CrewView";
import { ErrorIcon } from "./components/icons";
import { Sidebar } from "./components/Sidebar";
import { StartView } from "./components/StartView";

export function App() {
  const [crews, setCrews] = useState<CrewSummary[] | null>(null);
  const [folder, setFolder] = useState("");
  const [doc, setDoc] = useState<CrewDocument | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    backend.listCrews().then(setCrews, (e: Error) => {
      setCrews([]);
      setError(e.message);
    });
    backend.crewsFolder().then(setFolder, () => {});
  }, []);

  const open = useCallback((path: string) => {
    setError(null);
    backend.openCrew(path).then(setDoc, (e: Error) => setError(e.message));
  }, []);

  const pick = useCallback(
    (kind: "file" | "folder") => {
      backend.pickCrew(kind).then((path) => path && open(path), (e: Error) => setError(e.message));
    },
    [open],
  );

  return (
    <div className="app">
      <Sidebar crews={crews} openPath={doc?.path ?? null} onHome={() => setDoc(null)} onOpen={open} onPick={pick} />
      <main className="main">
        {error && (
          <div className="banner error" role="alert">
            <ErrorIcon size={16} /> <span>{error}</span>
            <button type="button" onClick={() => setError(null)} aria-label="Dismiss">
              ×
            </button>
          </div>
        )}
        {doc ? <CrewView key={doc.path} doc={doc} /> : <StartView crews={crews} folder={folder} onOpen={open} onPick={pick} />}
      </main>
    </div>
  );
}
