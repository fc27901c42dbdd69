// The editor's right-hand panel: what is selected, to change it — the crew and
// its signals when nothing is, an agent's form, a group, an arrow, End or Wait
// explained, or what to do with several things at once.
import "./inspector.css";
import { memo } from "react";
import { useEditor } from "../../editor/store";
import { inSelection, nodeRef } from "../../graph/refs";
import { useModelWarnings } from "../../models/useModelWarnings";
import { AgentForm } from "./AgentForm";
import { CrewPanel } from "./CrewPanel";
import { EdgePanel } from "./EdgePanel";
import { PanelTitle, ProblemList } from "./fields";
import { GroupPanel } from "./GroupPanel";
import { SelectionPanel } from "./SelectionPanel";

export { NewAgentDialog } from "./NewAgentDialog";
export { AgentForm } from "./AgentForm";

const PLACES: Record<string, { title: string; words: string }> = {
  end: {
    title: "End",
    words:
      "A run that reaches End is finished. Draw an arrow from an agent to End to let it finish the run with a signal.",
  },
  wait: {
    title: "Wait",
    words:
      "A run that reaches Wait pauses until you answer; then the same agent goes on. Draw an arrow from an agent to Wait to let it ask you.",
  },
  router: { title: "Router", words: "Decides, after each agent, which agent works next. Change how in the crew's settings." },
};

/** Drawn again only when what it shows changes (not with the editor around it: its
 * inputs re-rendered with every update of a live run). */
export const EditorInspector = memo(function EditorInspector() {
  const selection = useEditor((s) => s.selection);
  const spec = useEditor((s) => s.spec);
  return (
    <aside className="ins" aria-label="Inspector">
      {!spec ? (
        <p className="ins-muted">Open or create a crew to change it here.</p>
      ) : selection.length === 0 ? (
        <CrewPanel />
      ) : selection.length > 1 ? (
        <SelectionPanel ids={selection} />
      ) : (
        <One id={selection[0]} />
      )}
    </aside>
  );
});

function One({ id }: { id: string }) {
  const spec = useEditor((s) => s.spec);
  const path = useEditor((s) => s.path);
  const document = useEditor((s) => s.document);
  const warnings = useModelWarnings();
  // Matched against the crew (the engine's graph may be behind an edit), else the
  // graph's node (an agent or group just taken out of the crew: its panel says so).
  const inCrew = spec ? inSelection(spec, [id]) : { agents: [], groups: [] };
  const node = document?.graph.nodes.find((n) => n.id === id);
  const agentId = inCrew.agents[0] ?? (node ? nodeRef(node).agent : null);
  const groupId = inCrew.groups[0] ?? (node ? nodeRef(node).group : null);
  const runtime = inCrew.agents.length === 0 ? document?.agents.find((a) => a.id === agentId && a.runtime) : undefined;
  if (runtime) {
    return (
      <section className="ins-panel" aria-label={`Agent ${runtime.name || runtime.id}`}>
        <PanelTitle kind="Agent · added while running" title={runtime.name || runtime.id} />
        {runtime.role && <p className="ins-text">{runtime.role}</p>}
        {runtime.description && <p className="ins-text">{runtime.description}</p>}
        <p className="ins-muted">
          This agent was added while the app runs (with <code>crewgraph agents add</code> or the API), so it is not in the crew's file and
          is not changed here. Every run of this crew on this computer includes it. To take it out:{" "}
          <code>
            crewgraph agents remove {runtime.id} --crew {path ?? "CREW"}
          </code>
          .
        </p>
      </section>
    );
  }
  if (agentId !== null) {
    // Keyed by the agent's place, so a rename keeps the form (and its focus).
    const place = spec?.agents.findIndex((a) => a.id === agentId) ?? -1;
    return <AgentForm key={`agent#${place}`} agentId={agentId} />;
  }
  if (groupId !== null) return <GroupPanel groupId={groupId} />;
  const place = PLACES[id];
  if (place) {
    return (
      <section className="ins-panel" aria-label={place.title}>
        <PanelTitle kind="Place" title={place.title} />
        <ProblemList problems={warnings.filter((w) => w.targets.includes(id))} />
        <p className="ins-text">{place.words}</p>
      </section>
    );
  }
  return <EdgePanel edgeId={id} />;
}
