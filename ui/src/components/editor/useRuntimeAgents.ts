// Keeps the canvas's runtime agents current (editor/runtime.ts): the crew as it runs
// is looked at when it opens, every few seconds while it is open (an agent added
// with `crewgraph agents add` or over HTTP shows up on its own), and at once when a
// run's events name an agent the canvas does not have (one added while the run goes
// on: its card appears, then glows as it works, and the tracker says its name).
import { useEffect, useRef } from "react";
import { backend } from "../../backend";
import { runtimePart, samePart, unknownAgents } from "../../editor/runtime";
import { editorStore } from "../../editor/store";
import { runStore } from "../../run/store";

/** How often the crew as it runs is looked at (a crew of many agents, less often). */
const LOOK_MS = 3000;
const LOOK_BIG_MS = 20000;
const BIG = 300;

export function useRuntimeAgents(path: string | null) {
  // The run agents already looked for, so one the crew does not have is asked once.
  const asked = useRef(new Set<string>());
  useEffect(() => {
    asked.current = new Set();
    if (!path) return;
    let live = true;
    let busy = false;
    let again = false;
    const look = async () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        const running = await backend.openCrew(path);
        if (!live || editorStore.getState().path !== path) return;
        const part = running.parsed ? runtimePart(running) : null;
        if (!samePart(part, editorStore.getState().runtime)) editorStore.getState().setRuntime(part);
      } catch {
        // The next look will tell.
      } finally {
        busy = false;
        if (again && live) {
          again = false;
          void look();
        }
      }
    };
    void look();
    const size = editorStore.getState().document?.graph.nodes.length ?? 0;
    const timer = window.setInterval(() => void look(), size > BIG ? LOOK_BIG_MS : LOOK_MS);
    // A run naming an agent the canvas lacks: look now.
    const stop = runStore.subscribe((state) => {
      const agents = state.view ? Object.keys(state.view.agents) : [];
      const unknown = unknownAgents(editorStore.getState().document, agents).filter((id) => !asked.current.has(id));
      if (unknown.length === 0) return;
      for (const id of unknown) asked.current.add(id);
      void look();
    });
    return () => {
      live = false;
      window.clearInterval(timer);
      stop();
    };
  }, [path]);
}
