// A CrewAI project imported (Import CrewAI project…): what the person is told once
// the crew is open — where it came from, how many things could not come along (each
// listed by ImportReport), and what to write in the run's input for the project's
// {placeholders}. Pure, so it is tested without a window.
import type { ImportedCrew } from "../../bindings/ImportedCrew";
import type { ImportIssue } from "../../bindings/ImportIssue";

/** What the last import could not carry over, to list under the banner. */
export type ImportReport = { name: string; warnings: ImportIssue[] };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The banner's words once an imported crew is open. */
export function importedNotice(imported: ImportedCrew): string {
  const how = imported.process === "hierarchical" ? "a manager and a router model share out the tasks" : "its tasks run one after another";
  const left = imported.warnings.length === 0 ? "Everything came along." : `${plural(imported.warnings.length, "thing")} could not come along (listed below).`;
  const inputs =
    imported.inputs.length === 0
      ? ""
      : ` When you run it, write ${imported.inputs.join(", ")} in the input (for example "${imported.inputs[0]}: …").`;
  return `Imported "${imported.name}" from CrewAI: ${how}. ${left}${inputs} Save it to choose where it lives.`;
}

/** `file:line:col`, as the CLI prints it. */
export function place(issue: ImportIssue): string {
  const { file, line, column } = issue.location;
  return `${file}:${line}:${column}`;
}
