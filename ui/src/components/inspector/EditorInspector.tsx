// The editor's right-hand panel: what is selected, to change it — the crew and
// its signals when nothing is, an agent's form, a group, an arrow, End or Wait
// explained, or what to do with several things at once.
import "./inspector.css";
import { useEditor } from "../../editor/store";
import { AgentForm } from "./AgentForm";
import { CrewPanel } from "./CrewPanel";
import { EdgePanel } from "./EdgePanel";
import { PanelTitle } from "./fields";
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

export function EditorInspector() {
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
}

function One({ id }: { id: string }) {
  const spec = useEditor((s) => s.spec);
  if (id.startsWith("agent:")) {
    const agentId = id.slice("agent:".length);
    // Keyed by the agent's place, so a rename keeps the form (and its focus).
    const place = spec?.agents.findIndex((a) => a.id === agentId) ?? -1;
    return <AgentForm key={`agent#${place}`} agentId={agentId} />;
  }
  if (id.startsWith("group:")) return <GroupPanel groupId={id.slice("group:".length)} />;
  const place = PLACES[id];
  if (place) {
    return (
      <section className="ins-panel" aria-label={place.title}>
        <PanelTitle kind="Place" title={place.title} />
        <p className="ins-text">{place.words}</p>
      </section>
    );
  }
  return <EdgePanel edgeId={id} />;
}
