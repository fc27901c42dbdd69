// What an import left out or changed, listed under the banner: each warning with its
// file:line:col and the words the engine chose, until the person dismisses it.
import { place, type ImportReport as Report } from "./crewaiImport";

export function ImportReport({ report, onDismiss }: { report: Report; onDismiss: () => void }) {
  return (
    <section className="banner warning import-report" aria-label={`What could not come along from ${report.name}`}>
      <div>
        <strong>What could not come along from CrewAI</strong>
        <ul>
          {report.warnings.map((warning) => (
            <li key={`${place(warning)} ${warning.message}`}>
              <code>{place(warning)}</code> {warning.message}
            </li>
          ))}
        </ul>
      </div>
      <button type="button" onClick={onDismiss} aria-label="Dismiss the import's warnings">
        ×
      </button>
    </section>
  );
}
