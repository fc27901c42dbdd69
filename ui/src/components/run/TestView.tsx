// The run dock's Test tab (route coverage): **Test the routes** runs one simulated
// run per arrow of the saved crew (scripted replies that take the arrow, then
// finish; no model called), and while the tab is open the canvas paints each arrow
// by how often those runs took it — never (red, dashed), in few of them, in many, in
// (nearly) all — with the legend here. Below: the arrows no run can take and why,
// the agents no run gives work, the runs that did not end as planned, and what the
// test did not try (tools). The same report as `crewgraph test`.
import "./coverage.css";
import { useEffect } from "react";
import type { CrewTest } from "../../bindings/CrewTest";
import { arrowWords, legend, verdict } from "../../run/coverage";
import { coverageStore, useCoverage } from "../../run/coverageStore";
import { testRoutes } from "./testActions";

type TestViewProps = {
  /** The crew's file; null while it was never saved. */
  crewPath: string | null;
  /** False while the crew has errors. */
  crewValid: boolean;
  /** The crew has edits not saved yet. */
  unsaved?: boolean;
};

export function TestView({ crewPath, crewValid, unsaved = false }: TestViewProps) {
  const report = useCoverage((s) => (s.crew === crewPath ? s.report : null));
  const error = useCoverage((s) => (s.crew === crewPath ? s.error : null));
  const running = useCoverage((s) => s.crew === crewPath && s.running);

  // The canvas shows the test while this tab is open, for this crew only.
  useEffect(() => {
    coverageStore.getState().follow(crewPath);
    coverageStore.getState().show(true);
    return () => coverageStore.getState().show(false);
  }, [crewPath]);

  const blocked = !crewPath
    ? "Save the crew first: the test runs the saved file."
    : !crewValid
      ? "Fix the crew's problems first (they are listed under the graph)."
      : null;
  return (
    <section className="run-test" aria-label="Test">
      <div className="test-head">
        <button
          type="button"
          className="run-button primary"
          disabled={blocked !== null || running}
          onClick={() => crewPath && testRoutes(crewPath)}
          title="One simulated run per arrow: scripted replies that take it, then finish. No model is called."
        >
          {running ? "Testing…" : report ? "Test again" : "Test the routes"}
        </button>
        <p className={`test-verdict${report ? (report.passed ? " passed" : " failed") : ""}`} role="status">
          {blocked ?? (running ? "Running one simulated run per arrow…" : report ? verdict(report) : "")}
        </p>
      </div>
      {error && (
        <p className="test-error" role="alert">
          The test could not be made: {error}
        </p>
      )}
      {!report && !error && !running && blocked === null && (
        <p className="run-empty">
          Can a run take every arrow? The test makes one simulated run per arrow — replies that take it, then finish — without calling a model, and colours
          each arrow by how often the runs took it.
        </p>
      )}
      {unsaved && crewPath && <p className="run-note">Tests the crew as last saved. Save to test your changes.</p>}
      {report && <Report report={report} />}
    </section>
  );
}

function Report({ report }: { report: CrewTest }) {
  const never = report.arrows.filter((a) => a.taken === 0);
  const unreached = report.agents.filter((a) => !a.reached);
  const failed = report.scenarios.filter((s) => !s.passed);
  const arrow = (id: string) => report.arrows.find((a) => a.id === id);
  return (
    <div className="test-report">
      <ul className="test-legend" aria-label="What the arrows' colours mean">
        {legend(report.runs).map(({ heat, words }) => (
          <li key={heat}>
            <svg width="30" height="10" aria-hidden>
              <line x1="0" y1="5" x2="30" y2="5" className={`coverage-line coverage-${heat}`} />
            </svg>
            {words}
          </li>
        ))}
      </ul>
      {never.length > 0 && (
        <section className="test-list" aria-label="Arrows no run takes">
          <h3>Never taken</h3>
          <ul>
            {never.map((a) => (
              <li key={a.id} data-arrow={a.id}>
                <b>{arrowWords(a)}</b>
                <span>{a.unreachable ? `: ${a.unreachable}` : ""}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {unreached.length > 0 && (
        <section className="test-list" aria-label="Agents no run reaches">
          <h3>Agents no run gives work</h3>
          <ul>
            {unreached.map((a) => (
              <li key={a.agent}>
                <b>{a.name}</b>
                <span>{a.unreached ? `: ${a.unreached}` : ""}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {failed.length > 0 && (
        <section className="test-list" aria-label="Runs that did not end as planned">
          <h3>Runs that did not end as planned</h3>
          <ul>
            {failed.map((s) => {
              const a = arrow(s.arrow);
              return (
                <li key={s.arrow}>
                  <b>The run for {a ? arrowWords(a) : s.arrow}</b>
                  <span>: {s.problem}</span>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      {report.notes.map((note) => (
        <p key={note} className="run-note">
          {note}
        </p>
      ))}
    </div>
  );
}
