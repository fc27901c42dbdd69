// The right-hand panel: what is selected, in words — an agent, a signal edge, a
// group — or, with nothing selected, the crew itself.
import type { AgentView } from "../bindings/AgentView";
import type { CrewDocument } from "../bindings/CrewDocument";
import type { Strategy } from "../bindings/Strategy";
import type { ViewEdge } from "../bindings/ViewEdge";
import type { ViewNode } from "../bindings/ViewNode";
import { behaviorColor, behaviorWords, formatDuration, kindWords } from "../graph/style";
import { AlertIcon, ErrorIcon } from "./icons";

const strategyWords: Record<Strategy, string> = {
  signals: "Agents pass the work on with signals in their replies.",
  scoring: "The first agent picks the best specialist for each request by matching words and tags.",
  llm: "A router model decides which agent works next.",
  gatekeeper: "An outside service decides which agent works next.",
};

export function Inspector({ doc, selected }: { doc: CrewDocument; selected: string | null }) {
  const node = doc.graph.nodes.find((n) => n.id === selected);
  const edge = doc.graph.edges.find((e) => e.id === selected);
  const problems = selected ? doc.problems.filter((p) => p.targets.includes(selected)) : [];
  return (
    <aside className="inspector" aria-label="Inspector">
      {node?.kind === "agent" ? (
        <AgentDetails agent={doc.agents.find((a) => a.id === node.agent)} node={node} />
      ) : node?.kind === "group" ? (
        <GroupDetails node={node} />
      ) : node ? (
        <PseudoDetails node={node} />
      ) : edge ? (
        <EdgeDetails doc={doc} edge={edge} />
      ) : (
        <CrewDetails doc={doc} />
      )}
      {problems.length > 0 && (
        <section className="inspector-problems">
          <h3>Problems here</h3>
          <ul>
            {problems.map((p, i) => (
              <li key={i} className={p.diagnostic.severity}>
                {p.diagnostic.severity === "error" ? <ErrorIcon size={14} /> : <AlertIcon size={14} />}
                <span>{p.diagnostic.plain}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </aside>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="field">
      <div className="field-label">{label}</div>
      <div className="field-value">{children}</div>
    </div>
  );
}

function Chips({ items, empty }: { items: string[]; empty: string }) {
  if (items.length === 0) return <span className="muted">{empty}</span>;
  return (
    <span className="chips">
      {items.map((item) => (
        <span className="chip" key={item}>
          {item}
        </span>
      ))}
    </span>
  );
}

function CrewDetails({ doc }: { doc: CrewDocument }) {
  const agents = doc.agents.length;
  const used = new Set(doc.graph.edges.map((e) => e.signal).filter(Boolean));
  return (
    <section>
      <div className="inspector-kind">Crew</div>
      <h2>{doc.name}</h2>
      {doc.description && <p className="inspector-text">{doc.description}</p>}
      {doc.strategy && <Field label="How work is routed">{strategyWords[doc.strategy]}</Field>}
      <Field label="Starts with">{doc.agents.find((a) => a.id === doc.entry_point)?.name ?? doc.entry_point ?? "—"}</Field>
      <Field label="Agents">{agents}</Field>
      {doc.max_handoffs !== null && <Field label="Most handoffs per run">{doc.max_handoffs}</Field>}
      <Field label="Signals in use">
        <Chips items={[...used] as string[]} empty="none" />
      </Field>
      <Field label="File">
        <code className="path">{doc.path}</code>
      </Field>
      <p className="hint">Select an agent or an arrow to see its details.</p>
    </section>
  );
}

function AgentDetails({ agent, node }: { agent: AgentView | undefined; node: ViewNode }) {
  if (!agent) return <section><h2>{node.label}</h2></section>;
  return (
    <section>
      <div className="inspector-kind">Agent</div>
      <h2>{agent.name}</h2>
      {agent.role && <p className="inspector-role">{agent.role}</p>}
      {agent.description && <p className="inspector-text">{agent.description}</p>}
      <Field label="Id">
        <code>{agent.id}</code>
      </Field>
      {agent.objective && <Field label="Goal">{agent.objective}</Field>}
      <Field label="Model">{agent.model ?? "the default model"}</Field>
      {agent.temperature !== null && <Field label="Temperature">{agent.temperature}</Field>}
      <Field label="Tags">
        <Chips items={agent.tags} empty="none" />
      </Field>
      <Field label="Tools">
        <Chips items={agent.tools} empty="none" />
      </Field>
      <Field label="Otherwise hands off to">
        <Chips items={agent.handoff_targets} empty="nobody" />
      </Field>
      <Field label="When it sends no signal">
        {agent.wait_for_signal ? "waits for you" : agent.is_terminal ? "the run is finished" : "the crew's fallback rule applies"}
      </Field>
      {agent.system_prompt && (
        <details className="prompt">
          <summary>Instructions (system prompt)</summary>
          <pre>{agent.system_prompt}</pre>
        </details>
      )}
    </section>
  );
}

function EdgeDetails({ doc, edge }: { doc: CrewDocument; edge: ViewEdge }) {
  const name = (id: string) => doc.graph.nodes.find((n) => n.id === id)?.label ?? id;
  const signal = edge.signal ? doc.signals.find((s) => s.name === edge.signal) : undefined;
  if (edge.kind !== "signal") {
    return (
      <section>
        <div className="inspector-kind">Connection</div>
        <h2>
          {name(edge.source)} → {name(edge.target)}
        </h2>
        <p className="inspector-text">{kindWords[edge.kind]}</p>
      </section>
    );
  }
  return (
    <section>
      <div className="inspector-kind">Signal</div>
      <h2>
        <code>{edge.signal}</code>
      </h2>
      {edge.description && <p className="inspector-text">{edge.description}</p>}
      <Field label="From → to">
        {name(edge.source)} → {name(edge.target)}
      </Field>
      {edge.behavior && (
        <Field label="What it does">
          <span className="behavior-dot" style={{ background: behaviorColor[edge.behavior] }} /> {behaviorWords[edge.behavior]}
        </Field>
      )}
      {signal && (
        <>
          {signal.pattern && (
            <Field label="Matches lines like">
              <code>{signal.pattern}</code>
            </Field>
          )}
          <Field label="Who may send it">
            <Chips items={signal.allowed_agents} empty="any agent" />
          </Field>
          {signal.valid_targets.length > 0 && (
            <Field label="May lead to">
              <Chips items={signal.valid_targets} empty="" />
            </Field>
          )}
          <Field label="Priority">{signal.priority}</Field>
          {signal.deprecated && <Field label="Being phased out">{signal.deprecated}</Field>}
          <Field label="Defined">{signal.origin === "builtin" ? "built into Crewgraph" : signal.origin === "declared" ? "in this crew's signal list" : "by this route"}</Field>
        </>
      )}
    </section>
  );
}

function GroupDetails({ node }: { node: ViewNode }) {
  const group = node.group;
  return (
    <section>
      <div className="inspector-kind">Parallel group</div>
      <h2>{node.label}</h2>
      {node.description && <p className="inspector-text">{node.description}</p>}
      {group && (
        <>
          <Field label="Works side by side">
            <Chips items={group.members} empty="nobody yet" />
          </Field>
          <Field label="Time limit">{formatDuration(group.timeout_ms)}</Field>
          <Field label="Waits for everyone">{group.wait_for_all ? "yes: a member that runs out of time stops the run" : "no: goes on with whoever finished in time"}</Field>
          <Field label="Then">{group.next_agent ?? "back to the agent that started the group"}</Field>
        </>
      )}
    </section>
  );
}

function PseudoDetails({ node }: { node: ViewNode }) {
  const words: Record<string, string> = {
    end: "A run that reaches End is finished.",
    wait: "A run that reaches Wait pauses until you answer; then it goes on.",
    router: "Decides, after each agent, which agent works next.",
  };
  return (
    <section>
      <div className="inspector-kind">{node.label}</div>
      <h2>{node.label}</h2>
      <p className="inspector-text">{words[node.kind]}</p>
    </section>
  );
}
