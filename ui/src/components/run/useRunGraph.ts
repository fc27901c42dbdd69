// Hooks for the graph's node and edge components: each reads only what it draws
// from the run store (a string or two numbers), so a token arriving redraws only
// the cards and arrows whose look changes. They read the run as the graph draws it
// (`graph`: a live update reaches it a frame after the run dock, store.ts).
import { useEffect, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useRun } from "../../run/store";
import { endWords, groupWords } from "../../run/words";
import type { NodeRef } from "../../graph/refs";
import { edgeRunInfo, nodeRunClass } from "./runClasses";
import { useNames } from "./useNames";

/** The run classes for a node ("" when no run is shown or nothing is on it). */
export function useNodeRunClass(node: NodeRef): string {
  return useRun((s) => nodeRunClass(node, s.graph));
}

/** How often the run took the arrow from `source` to `target`, and whether it pulses. */
export function useEdgeRunInfo(source: NodeRef, target: NodeRef): { count: number; pulse: boolean } {
  return useRun(useShallow((s) => edgeRunInfo({ source, target }, s.graph)));
}

/** What the End node says once the run is over ("Finished: Teacher said [END]"). */
export function useEndWords(): string | null {
  const names = useNames();
  return useRun((s) => endWords(s.graph, names));
}

/** A group frame's progress while the run is in it or after ("2 of 3 done · 12 s
 * left"); the time left counts down while a live run's group works — not while the
 * person types the replies or steps through them (their time is not the model's:
 * the group's limit does not run then). */
export function useGroupRunWords(groupId: string | null, timeoutMs: number | null): string | null {
  const progress = useRun((s) => (groupId === null ? null : (s.graph?.groups[groupId] ?? null)));
  const live = useRun((s) => s.replay === null && s.ended === null && !s.typed && s.pace !== "step");
  const ticking = progress !== null && !progress.finished && live && timeoutMs !== null;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [ticking]);
  if (!progress) return null;
  return groupWords(progress, ticking ? timeoutMs : null, ticking ? now : null);
}
