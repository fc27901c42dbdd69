// The signal registry: every signal the crew knows (its own, the ones its routes
// name, the built-in ones), what each does and means, who may send it, where it
// may lead, and the routes using it (a click shows the route on the canvas). A
// signal can be added, changed in place, renamed (routes follow), phased out, or
// deleted once no route uses it (the refusal lists the routes that still do).
import { useEffect, useState } from "react";
import type { CrewDocument } from "../../bindings/CrewDocument";
import type { CrewSpec } from "../../bindings/CrewSpec";
import { isStrict } from "../../editor/registry";
import { type SignalRow, type SignalUse, deleteSignal, listSignals } from "../../editor/signals";
import { editorStore, useEditor } from "../../editor/store";
import { behaviorColor, behaviorWords } from "../../graph/style";
import { select } from "./apply";
import { ProblemList } from "./fields";
import { AddSignal, SignalEditor } from "./SignalEditor";

export function SignalsPanel() {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  if (!spec) return null;
  const rows = listSignals(spec, document);
  // A function, not a component: the items keep their state across renders.
  const signalList = (rows: SignalRow[]) => (
    <ul className="ins-signals">
      {rows.map((row) => (
        <SignalItem
          key={row.name}
          row={row}
          spec={spec}
          document={document}
          editing={editing === row.name}
          onEditing={setEditing}
        />
      ))}
    </ul>
  );
  return (
    <section className="ins-panel" aria-label="Signals">
      <p className="ins-text">
        Signals are words an agent writes in its reply, like <code>[DONE]</code>, to pass the work on.
      </p>
      {!isStrict(spec) && (
        <p className="ins-help">
          This crew has no signal list of its own: its routes say what each signal does. Changing a signal here starts
          the list.
        </p>
      )}
      {adding ? (
        <AddSignal onDone={() => setAdding(false)} />
      ) : (
        <div className="ins-actions">
          <button type="button" className="ins-button primary" onClick={() => setAdding(true)}>
            Add a signal
          </button>
        </div>
      )}
      {rows.some((r) => r.origin !== "builtin") ? (
        signalList(rows.filter((r) => r.origin !== "builtin"))
      ) : (
        <p className="ins-muted">This crew has no signals of its own yet. Add one, or draw an arrow from an agent.</p>
      )}
      <details className="ins-builtins">
        <summary>Built-in signals ({rows.filter((r) => r.origin === "builtin").length})</summary>
        <p className="ins-help">Every crew knows these; a route can use them without adding them.</p>
        {signalList(rows.filter((r) => r.origin === "builtin"))}
      </details>
    </section>
  );
}

type SignalItemProps = {
  row: SignalRow;
  spec: CrewSpec;
  document: CrewDocument | null;
  editing: boolean;
  onEditing: (name: string | null) => void;
};

function SignalItem({ row, spec, document, editing, onEditing }: SignalItemProps) {
  const [refused, setRefused] = useState<{ error: string; uses: SignalUse[] } | null>(null);
  // A refusal is about the crew as it was: any change (an undo, a route deleted) ends it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: spec is the trigger (any change ends the refusal)
  useEffect(() => setRefused(null), [spec]);
  const color = behaviorColor[row.behavior];
  const agentName = (id: string) => spec.agents.find((a) => a.id === id)?.name || id;
  const names = (ids: string[], empty: string) => (ids.length === 0 ? empty : ids.map(agentName).join(", "));
  const remove = () => {
    const result = editorStore.getState().edit(`Delete the signal ${row.name}`, (s) => deleteSignal(s, row.name));
    setRefused(result.ok ? null : { error: result.error, uses: "uses" in result ? result.uses : [] });
  };
  return (
    <li className="ins-signal" aria-label={row.name}>
      <div className="ins-signal-head">
        <span className="ins-pill" style={{ color, borderColor: color }}>
          {row.name}
        </span>
        {row.origin === "builtin" && <span className="ins-tag">built in</span>}
        {row.overrides_builtin && <span className="ins-tag">replaces a built-in</span>}
        {row.origin === "unregistered" && <span className="ins-tag error">not in the signal list</span>}
        {row.deprecated !== null && <span className="ins-tag warning">phased out</span>}
      </div>
      <p className="ins-text">
        <span className="ins-dot" style={{ background: color }} aria-hidden="true" />
        {behaviorWords[row.behavior]}
        {row.description && <span className="ins-muted"> · {row.description}</span>}
      </p>
      <dl className="ins-facts">
        <dt>Who may send it</dt>
        <dd>{names(row.allowed_agents, "any agent")}</dd>
        <dt>May lead to</dt>
        <dd>{names(row.valid_targets, "anywhere")}</dd>
        <dt>Priority</dt>
        <dd>{row.priority}</dd>
        {row.pattern && (
          <>
            <dt>Matches lines like</dt>
            <dd>
              <code>{row.pattern}</code>
            </dd>
          </>
        )}
        {row.deprecated !== null && (
          <>
            <dt>Being phased out</dt>
            <dd>{row.deprecated}</dd>
          </>
        )}
      </dl>
      <ProblemList problems={row.problems} />
      {row.uses.length === 0 ? (
        <p className="ins-muted">Not used by any route.</p>
      ) : (
        <details className="ins-uses">
          <summary>
            Used by {row.uses.length} route{row.uses.length === 1 ? "" : "s"}
          </summary>
          <Uses uses={row.uses} row={row} spec={spec} document={document} />
        </details>
      )}
      <div className="ins-actions">
        <button
          type="button"
          className="ins-button"
          aria-expanded={editing}
          onClick={() => onEditing(editing ? null : row.name)}
        >
          {editing ? "Done" : "Change"}
        </button>
        {row.origin !== "builtin" && (
          <button type="button" className="ins-button danger" onClick={remove}>
            Delete
          </button>
        )}
      </div>
      {refused && (
        <div className="ins-error" role="alert">
          <p>{refused.error}</p>
          {refused.uses.length > 0 && <Uses uses={refused.uses} row={row} spec={spec} document={document} />}
        </div>
      )}
      {editing && <SignalEditor row={row} onRenamed={onEditing} />}
    </li>
  );
}

type UsesProps = { uses: SignalUse[]; row: SignalRow; spec: CrewSpec; document: CrewDocument | null };

/** The routes using a signal; clicking one selects its arrows on the canvas. */
function Uses({ uses, row, spec, document }: UsesProps) {
  const agentName = (id: string) => spec.agents.find((a) => a.id === id)?.name || id;
  const targetWords = (target: SignalUse["target"]) => {
    const targets = (Array.isArray(target) ? target : [target ?? ""]).filter((t) => t !== "");
    if (targets.length === 0) return row.behavior === "pause" ? "Wait" : "End";
    return targets.map(agentName).join(", ");
  };
  return (
    <ul className="ins-list">
      {uses.map((use) => {
        const edges = (document?.graph.edges ?? []).filter(
          (e) => e.rule?.agent === use.agent && e.rule.index === use.index,
        );
        const words = `${agentName(use.agent)} → ${targetWords(use.target)}`;
        return (
          <li key={`${use.agent}:${use.index}`}>
            <button
              type="button"
              className="ins-link"
              disabled={edges.length === 0}
              title={edges.length === 0 ? "Not on the canvas yet: the crew is being checked" : "Show it on the canvas"}
              onClick={() => select(edges.map((e) => e.id))}
            >
              {words}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
