// The names the run panel shows for the ids in a run's events: each agent's name
// and each group's id, from the crew open in the editor (the id itself for anything
// the crew does not have, such as an agent of a replayed run's older crew).
import { useMemo } from "react";
import { useEditor } from "../../editor/store";
import type { Namer } from "../../run/words";

export function useNames(): Namer {
  const nodes = useEditor((s) => s.document?.graph.nodes);
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const node of nodes ?? []) {
      if (node.kind === "agent" && node.agent) names.set(node.agent, node.label || node.agent);
      if (node.kind === "group") names.set(node.label, node.label);
    }
    return (id: string) => names.get(id) ?? id;
  }, [nodes]);
}
