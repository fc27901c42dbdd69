// A selected arrow in words: a signal route (from → to, its signal, what the
// signal means, what it does) with its signal and description editable and a
// delete button; the other arrows (otherwise, group members, then, finishes,
// waits for you) explained, and deletable where that means something. While the
// engine's verdict is behind the edits, the arrow's rule may have moved, so
// editing waits for the check. An arrow that can lead elsewhere (a route, an
// "otherwise" arrow, a group's "then") is re-pointed with its "Leads to" field: one
// undo step, like any edit.
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { ViewEdge } from "../../bindings/ViewEdge";
import type { Arrow } from "../../graph/refs";
import { edgeToEdit, removeEdge, repointEdge, repointKind, updateRule } from "../../editor/edges";
import { arrowOf, graphRefs } from "../../graph/refs";
import { rulesOf } from "../../editor/routing";
import { problemsFor, useEditor } from "../../editor/store";
import { behaviorColor, behaviorWords, kindWords } from "../../graph/style";
import { apply, select } from "./apply";
import { PanelTitle, ProblemList, SelectField, TextField } from "./fields";

/** What deleting each kind of arrow does, on its button. */
const DELETE_WORDS: Record<string, string> = {
  rule: "Delete this route",
  fallback: "Stop handing off here",
  membership: "Take this agent out of the group",
  group_next: "Go back to the sender instead",
  terminal: "Stop finishing the run here",
  waits: "Stop waiting for you here",
};

export function EdgePanel({ edgeId }: { edgeId: string }) {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const checked = useEditor((s) => s.checked);
  const edge = document?.graph.edges.find((e) => e.id === edgeId);
  const stale = checked !== spec;
  if (!spec || !document || !edge) {
    return (
      <section className="ins-panel" aria-label="Connection">
        <PanelTitle kind="Connection" title="Not found" />
        <p className="ins-muted">{stale ? "Checking…" : "This connection is no longer there."}</p>
      </section>
    );
  }
  const name = (nodeId: string) => document.graph.nodes.find((n) => n.id === nodeId)?.label ?? nodeId;
  const arrow = arrowOf(edge, graphRefs(document.graph));
  const ref = edgeToEdit(arrow);
  const remove = () => {
    const label = edge.kind === "signal" ? `Delete the ${edge.signal ?? ""} route from ${name(edge.source)}` : `Delete the arrow from ${name(edge.source)} to ${name(edge.target)}`;
    if (apply(label, (s) => removeEdge(s, arrow)) === null) select([]);
  };
  return (
    <section className="ins-panel" aria-label="Connection">
      <PanelTitle kind={edge.kind === "signal" ? "Route" : "Connection"} title={`${name(edge.source)} → ${name(edge.target)}`} />
      <ProblemList problems={problemsFor(document, edge.id)} />
      {edge.kind === "signal" ? (
        <SignalRoute spec={spec} edge={edge} from={name(edge.source)} stale={stale} />
      ) : (
        <p className="ins-text">{kindWords[edge.kind]}.</p>
      )}
      <LeadsTo spec={spec} arrow={arrow} from={name(edge.source)} stale={stale} />
      {ref === null ? (
        <p className="ins-muted">The crew's routing strategy draws this arrow; change the strategy in the crew's settings.</p>
      ) : (
        <div className="ins-actions">
          <button type="button" className="ins-button danger" disabled={stale} onClick={remove}>
            {DELETE_WORDS[ref.kind]}
          </button>
          {stale && <span className="ins-muted" role="status">Checking…</span>}
        </div>
      )}
    </section>
  );
}

type SignalRouteProps = { spec: CrewSpec; edge: ViewEdge; from: string; stale: boolean };

function SignalRoute({ spec, edge, from, stale }: SignalRouteProps) {
  const rule = edge.rule;
  const written = rule && !stale ? rulesOf(spec, rule.agent)[rule.index] : undefined;
  const signal = edge.signal ?? "";
  const change = (words: string, patch: Parameters<typeof updateRule>[3]) =>
    rule ? apply(`Change the ${signal} route's ${words} (${from})`, (s) => updateRule(s, rule.agent, rule.index, patch)) : null;
  return (
    <>
      <TextField
        label="Signal"
        help="What the agent writes in its reply to take this route, like [DONE]."
        value={signal}
        mono
        signalName
        disabled={stale || !rule}
        onCommit={(value) => change("signal", { signal: value })}
      />
      <TextField
        label="What the signal means"
        help="Words shown on the arrow before the signal. Empty: the signal list's words."
        value={written ? (written.description ?? "") : (edge.description ?? "")}
        placeholder={edge.description ?? undefined}
        disabled={stale || !rule}
        onCommit={(value) => change("description", { description: value })}
      />
      {edge.behavior && (
        <div className="ins-field">
          <div className="ins-label">What it does</div>
          <p className="ins-text">
            <span className="ins-dot" style={{ background: behaviorColor[edge.behavior] }} aria-hidden="true" />
            {behaviorWords[edge.behavior]}
          </p>
        </div>
      )}
    </>
  );
}

type LeadsToProps = { spec: CrewSpec; arrow: Arrow; from: string; stale: boolean };

/** Where the arrow leads, to choose another agent (or group) instead. */
function LeadsTo({ spec, arrow, from, stale }: LeadsToProps) {
  const kind = repointKind(arrow);
  if (kind === null) return null;
  const current = (kind === "group" ? arrow.target.group : arrow.target.agent) ?? "";
  const options =
    kind === "group"
      ? Object.keys(spec.routing?.parallel_groups ?? {}).map((g) => ({ value: g, label: `The group ${g}` }))
      : spec.agents.flatMap((a) =>
          a.id && !(arrow.view.kind === "fallback" && a.id === arrow.source.agent) ? [{ value: a.id, label: a.name || a.id }] : [],
        );
  if (!options.some((o) => o.value === current)) options.unshift({ value: current, label: current });
  return (
    <SelectField
      label="Leads to"
      help={kind === "group" ? "Choose another group for this arrow to start." : "Choose another agent for this arrow to lead to."}
      value={current}
      options={options}
      disabled={stale}
      onChange={(to) => {
        if (to === current) return null;
        const words = options.find((o) => o.value === to)?.label ?? to;
        const refusal = apply(`Re-point the arrow from ${from} to ${words}`, (s) => repointEdge(s, arrow, to));
        if (refusal === null) select([]);
        return refusal;
      }}
    />
  );
}
