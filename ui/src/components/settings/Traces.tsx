// Settings · traces: whether every run's trace is sent to a collector of
// OpenTelemetry traces (Phoenix, Langfuse, Jaeger…), its address, the headers its
// requests carry (text, or a saved key: ServerValues, as a tool server's headers),
// whether prompts and replies go too; and how it is going, in words: spans sent,
// dropped because the collector did not keep up, the last problem, and whether the
// environment (OTEL_EXPORTER_OTLP_ENDPOINT) decides instead. Save keeps it (the
// `set_traces` operation); a refusal is said beside the field it is about.
import { type FormEvent, useCallback, useEffect, useId, useState } from "react";
import { backend } from "../../backend";
import type { TraceSettings } from "../../bindings/TraceSettings";
import type { TracesView } from "../../bindings/TracesView";
import { rowsOf, ServerValues, type ValueRow, valuesOf } from "./ServerValues";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A count as a person reads it ("1 span", "1,204 spans"). The generated type says
 * bigint; JSON brings a number. */
const spans = (count: bigint | number) => {
  const n = Number(count);
  return `${n.toLocaleString("en-US")} ${n === 1 ? "span" : "spans"}`;
};

/** Where a refusal of `set_traces` is shown, and its words. */
export type Refusal = { field: "endpoint" | "headers" | "form"; words: string };

/** A refusal of `set_traces` (the engine's message) in a person's words, placed
 * beside the field it is about. */
export function refusalOf(refused: string): Refusal {
  const notUrl = refused.match(/endpoint '(.*)' is not an http/);
  if (notUrl) return { field: "endpoint", words: `“${notUrl[1]}” is not a web address: it starts with http:// or https:// (Phoenix: http://127.0.0.1:6006).` };
  if (/no endpoint is given/.test(refused)) return { field: "endpoint", words: "Write the collector's address to send traces (or turn them off)." };
  const badName = refused.match(/'(.*)' is not a header name/);
  if (badName) return { field: "headers", words: `“${badName[1]}” is not a header name: letters, digits, - and _ only.` };
  const badValue = refused.match(/the header (\S+) is neither text nor/);
  if (badValue) return { field: "headers", words: `The header ${badValue[1]} is neither text nor a saved key.` };
  return { field: "form", words: capital(refused) };
}

/** The last problem of the status (the engine's words, or the exporter's error)
 * in a person's words. */
export function problemWords(problem: string): string {
  const key = problem.match(/header (\S+) needs the key '([^']+)'/);
  if (key)
    return `The header ${key[1]} needs the saved key “${key[2]}”, and it is neither in the OS keyring nor in the environment. Save it on this computer with crewgraph keys set ${key[2]}.`;
  if (/no endpoint is given/.test(problem)) return "There is no collector's address: write one above.";
  const late = problem.match(/no answer within (\d+) s/);
  if (late) return `The collector did not answer within ${late[1]} seconds: is it running, and is the address right?`;
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden/i.test(problem)) return "The collector refused the spans (not allowed): check the headers and the key they name.";
  if (/\b404\b|not found/i.test(problem)) return "The collector has no place for traces at that address (not found): check the address (Langfuse's ends in /api/public/otel).";
  if (/network error|connect|refused|error sending request|dns|resolve|timed out/i.test(problem)) return "The collector could not be reached: is it running, and is the address right?";
  return "The collector did not take the spans.";
}

/** What the status says, line by line. */
export function statusLines(view: TracesView): string[] {
  const { settings, status } = view;
  if (!status.active) return status.problem ? ["Runs are not traced."] : ["Traces are off: runs are not sent anywhere."];
  const lines = [`Runs started now send their trace to ${status.endpoint}.`];
  const sent = Number(status.exported) + Number(status.dropped) + Number(status.failed);
  lines.push(
    sent === 0
      ? "Nothing sent yet: the next run's spans will be."
      : `${[
          `So far ${spans(status.exported)} sent`,
          Number(status.dropped) === 0 ? "none dropped" : `${spans(status.dropped)} dropped because the collector did not keep up`,
          ...(Number(status.failed) > 0 ? [`${spans(status.failed)} not taken by the collector`] : []),
        ].join(" · ")}.`,
  );
  const cut = Number(status.dropped_events ?? 0);
  if (cut > 0)
    lines.push(
      `${cut.toLocaleString("en-US")} ${cut === 1 ? "event" : "events"} of runs were left out because the traces could not be sent as fast as the runs went: those runs' traces end early.`,
    );
  if (status.capture_content)
    lines.push(
      settings.capture_content
        ? "Prompts and replies go with them."
        : "Prompts and replies go with them: the environment variable OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says so.",
    );
  return lines;
}

export function Traces() {
  const id = useId();
  const [view, setView] = useState<TracesView | null>(null);
  const [enabled, setEnabled] = useState(false);
  const [endpoint, setEndpoint] = useState("");
  const [headers, setHeaders] = useState<ValueRow[]>([]);
  const [capture, setCapture] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const rows = valuesOf(headers, "header");

  // The form shows what is kept (when it opens, and as saved: the address trimmed).
  const show = useCallback((shown: TracesView) => {
    setView(shown);
    setEnabled(shown.settings.enabled);
    setEndpoint(shown.settings.endpoint ?? "");
    setHeaders(rowsOf(shown.settings.headers));
    setCapture(shown.settings.capture_content);
  }, []);

  useEffect(() => {
    backend.traces().then(show, (e) => setRefusal({ field: "form", words: message(e) }));
  }, [show]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if ("problem" in rows) return;
    const settings: TraceSettings = {
      enabled,
      ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}),
      ...(rows.values ? { headers: rows.values } : {}),
      capture_content: capture,
    };
    setSaving(true);
    setNotice(null);
    try {
      const saved = await backend.setTraces(settings);
      show(saved);
      setRefusal(null);
      setNotice(saved.settings.enabled ? "Saved: runs started from now on follow it." : "Saved: traces are off.");
    } catch (e) {
      setRefusal(refusalOf(message(e)));
    } finally {
      setSaving(false);
    }
  };

  // With the switch off, the environment may send traces itself: its address and
  // headers then, not these (which stay kept for when the switch is on).
  const environment = view?.status.source === "environment";
  const locked = environment && !enabled;
  const problem = view?.status.problem ?? null;
  const refused = (field: Refusal["field"]) =>
    refusal?.field === field && (
      <span className="field-error" role="alert" id={`${id}-${field}-error`}>
        {refusal.words}
      </span>
    );

  return (
    <section className="settings-traces" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Traces</h3>
      <p className="field-help">
        A trace of every run — which agent spoke, with which model, how many tokens, each handoff and why — sent to a tool that shows
        traces, such as Phoenix, Langfuse or Jaeger (OpenTelemetry). A run never waits for it.
      </p>
      <form className="settings-traces-form" onSubmit={(e) => void save(e)} aria-label="Traces">
        <label className="settings-switch">
          <input type="checkbox" role="switch" checked={enabled} aria-checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          <span>Send traces of every run</span>
        </label>
        {environment && view?.status.endpoint && (
          <p className="field-help settings-traces-env">
            The environment variable OTEL_EXPORTER_OTLP_ENDPOINT, set where Crewgraph was started, decides now: every run's trace goes
            to {view.status.endpoint}.{" "}
            {enabled ? "Saved with the switch on, the address and headers here are used instead." : "Turn the switch on to use the address and headers here instead."}
          </p>
        )}
        <fieldset className="settings-traces-where" disabled={locked}>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-endpoint`}>
              The collector's address
            </label>
            <input
              id={`${id}-endpoint`}
              value={endpoint}
              onChange={(e) => setEndpoint(e.target.value)}
              placeholder="http://127.0.0.1:6006"
              spellCheck={false}
              aria-invalid={refusal?.field === "endpoint"}
              aria-describedby={refusal?.field === "endpoint" ? `${id}-endpoint-error` : `${id}-endpoint-help`}
            />
            {refused("endpoint")}
            <span className="field-help" id={`${id}-endpoint-help`}>
              Phoenix on this computer: <code>http://127.0.0.1:6006</code> · Jaeger or an OpenTelemetry Collector:{" "}
              <code>http://127.0.0.1:4318</code> · Langfuse: <code>https://cloud.langfuse.com/api/public/otel</code> with an Authorization
              header. How to set each one up: <cite className="settings-docs">docs/observability.md</cite> in Crewgraph's guide.
            </span>
          </div>
          <ServerValues noun="header" rows={headers} onChange={setHeaders} />
          {"problem" in rows && (
            <span className="field-error" role="alert">
              {rows.problem}
            </span>
          )}
          {refused("headers")}
        </fieldset>
        <label className="settings-switch">
          <input type="checkbox" role="switch" checked={capture} aria-checked={capture} onChange={(e) => setCapture(e.target.checked)} />
          <span>Include prompts and replies</span>
        </label>
        <p className={capture ? "settings-traces-warning" : "field-help"}>
          {capture
            ? "On: what the person and the agents write — the run's input, every reply, tool results — leaves this computer with the traces and is kept by the collector."
            : "Off, traces hold names, models, token counts, signals and times, never what was written."}
        </p>
        {view && (
          <div className="settings-traces-status" aria-live="polite">
            {statusLines(view).map((line) => (
              <p key={line}>{line}</p>
            ))}
            {problem && (
              <>
                <p className="field-error">{problemWords(problem)}</p>
                <details>
                  <summary>The exact message</summary>
                  <code>{problem}</code>
                </details>
              </>
            )}
          </div>
        )}
        {refused("form")}
        {notice && !refusal && (
          <p className="field-help" role="status">
            {notice}
          </p>
        )}
        <div className="dialog-actions">
          <button type="submit" disabled={saving || view === null || "problem" in rows}>
            {saving ? "Saving…" : "Save"}
          </button>
        </div>
      </form>
    </section>
  );
}
