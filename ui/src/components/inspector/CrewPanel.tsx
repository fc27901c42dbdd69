// With nothing selected: the crew itself (name, description, first agent, most
// handoffs, how work is routed, a summary of its problems), and a tab with its
// signal registry.
import { type KeyboardEvent, useId, useState } from "react";
import type { CrewSpec } from "../../bindings/CrewSpec";
import type { Strategy } from "../../bindings/Strategy";
import { routingOf } from "../../editor/routing";
import { useEditor } from "../../editor/store";
import { problemSummary } from "../../graph/problems";
import { useModelWarnings } from "../../models/useModelWarnings";
import { handoffLimitWords } from "../../run/words";
import { apply } from "./apply";
import { type CrewPatch, STRATEGIES, updateCrew } from "../../editor/crew";
import { PanelTitle, ProblemList, SelectField, TextField } from "./fields";
import { SignalsPanel } from "./SignalsPanel";

const strategyNames: Record<Strategy, string> = {
  signals: "Signals in the replies",
  scoring: "Best match for each request",
  llm: "A router model decides",
  gatekeeper: "An outside service decides",
};

/** The same words as the view-only inspector. */
const strategyWords: Record<Strategy, string> = {
  signals: "Agents pass the work on with signals in their replies.",
  scoring: "The first agent picks the best specialist for each request by matching words and tags.",
  llm: "A router model decides which agent works next.",
  gatekeeper: "An outside service decides which agent works next.",
};

const DEFAULT_MAX_HANDOFFS = 5;

export type CrewTab = "crew" | "signals";

export function CrewPanel({ initialTab = "crew" }: { initialTab?: CrewTab }) {
  const [tab, setTab] = useState<CrewTab>(initialTab);
  const id = useId();
  const tabs: { key: CrewTab; label: string }[] = [
    { key: "crew", label: "Crew" },
    { key: "signals", label: "Signals" },
  ];
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    const next = tab === "crew" ? "signals" : "crew";
    setTab(next);
    document.getElementById(`${id}-${next}-tab`)?.focus();
  };
  return (
    <div className="ins-crew">
      <div className="ins-tabs" role="tablist" aria-label="Crew settings" onKeyDown={onKeyDown}>
        {tabs.map(({ key, label }) => (
          <button
            key={key}
            type="button"
            role="tab"
            id={`${id}-${key}-tab`}
            className="ins-tab"
            aria-selected={tab === key}
            aria-controls={`${id}-${key}`}
            tabIndex={tab === key ? 0 : -1}
            onClick={() => setTab(key)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-${tab}`} aria-labelledby={`${id}-${tab}-tab`}>
        {tab === "crew" ? <CrewSettings /> : <SignalsPanel />}
      </div>
    </div>
  );
}

function CrewSettings() {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const validating = useEditor((s) => s.validating);
  const checkError = useEditor((s) => s.checkError);
  const warnings = useModelWarnings();
  if (!spec) return null;
  const change = (words: string, patch: CrewPatch) => apply(`Change the crew's ${words}`, (s) => updateCrew(s, patch));
  const fromSettings = spec.settings?.max_handoffs ? spec.settings.max_handoffs : undefined;
  const limitWords = handoffLimitWords(spec.max_handoffs ?? fromSettings ?? DEFAULT_MAX_HANDOFFS);
  const problems = [...(document?.problems ?? []), ...warnings];
  return (
    <section className="ins-panel" aria-label="Crew">
      <PanelTitle kind="Crew" title={spec.name || "Untitled crew"} />
      <TextField
        label="Name"
        help="What the crew is called in the list of crews."
        value={spec.name ?? ""}
        onCommit={(name) => change("name", { name })}
      />
      <TextField
        label="Description"
        help="One or two sentences: what this crew does."
        value={spec.description ?? ""}
        multiline
        rows={2}
        onCommit={(description) => change("description", { description })}
      />
      <SelectField
        label="First agent"
        help="Who gets your message when a run starts."
        value={spec.entry_point ?? ""}
        options={entryOptions(spec)}
        onChange={(entry_point) => (entry_point ? change("first agent", { entry_point }) : null)}
      />
      <TextField
        label={limitWords.label}
        help={`${limitWords.help} Empty: ${fromSettings ?? DEFAULT_MAX_HANDOFFS}.`}
        value={spec.max_handoffs === undefined ? "" : String(spec.max_handoffs)}
        type="number"
        min={1}
        step={1}
        placeholder={String(fromSettings ?? DEFAULT_MAX_HANDOFFS)}
        validate={(text) =>
          text.trim() === "" || /^[1-9]\d*$/.test(text.trim()) ? null : "The handoff limit is a whole number, 1 or more"
        }
        onCommit={(text) => change("handoff limit", { max_handoffs: text.trim() === "" ? null : Number(text) })}
      />
      <StrategyField spec={spec} onChange={(strategy) => change("routing", { strategy })} />
      <div className="ins-field">
        <div className="ins-label">Problems</div>
        <p className="ins-text" role="status">
          {checkError ? `The crew could not be checked: ${checkError}` : validating ? "Checking…" : problemSummary(problems)}
        </p>
        <ProblemList problems={problems.filter((p) => p.targets.length === 0)} />
        <p className="ins-help">Problems about one agent or arrow show on it and when you select it.</p>
      </div>
    </section>
  );
}

function entryOptions(spec: CrewSpec) {
  const agents = spec.agents.flatMap(({ id, name }) => (id ? [{ value: id, label: name || id }] : []));
  return spec.entry_point && agents.some((a) => a.value === spec.entry_point)
    ? agents
    : [{ value: spec.entry_point ?? "", label: spec.entry_point ? `${spec.entry_point} (not an agent)` : "Pick the first agent" }, ...agents];
}

function StrategyField({ spec, onChange }: { spec: CrewSpec; onChange: (strategy: Strategy) => string | null }) {
  const written = routingOf(spec).strategy;
  const current = STRATEGIES.find((s) => s === written) ?? (written === undefined ? "signals" : undefined);
  const options = STRATEGIES.map((s) => ({ value: s, label: strategyNames[s] }));
  return (
    <SelectField
      label="How work is routed"
      help={current ? strategyWords[current] : `'${written}' is not a routing strategy Crewgraph knows.`}
      value={current ?? written ?? ""}
      options={current ? options : [{ value: written ?? "", label: written ?? "" }, ...options]}
      onChange={(value) => onChange(value as Strategy)}
    />
  );
}
