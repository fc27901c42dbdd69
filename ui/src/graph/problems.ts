// Problems found by the engine (and the warnings the window adds about models,
// models/warnings.ts), gathered per node and edge so each can wear a badge.
import type { Diagnostic } from "../bindings/Diagnostic";
import type { Severity } from "../bindings/Severity";

/** A problem as the window shows it: one of the engine's (a ProblemView), or a
 * warning the window adds itself, with what a view needs of either. */
export type ShownProblem = {
  diagnostic: Pick<Diagnostic, "severity" | "plain" | "message" | "location">;
  /** Node and edge ids of the graph view (empty: about the crew as a whole). */
  targets: string[];
};

export type Badge = {
  severity: Severity;
  /** The plain-words messages, worst first. */
  messages: string[];
};

/** Badges keyed by node or edge id; an error outranks a warning. */
export function badgesByTarget<P extends ShownProblem>(problems: readonly P[]): Map<string, Badge> {
  const badges = new Map<string, Badge>();
  const sorted = [...problems].sort((a, b) => rank(a.diagnostic.severity) - rank(b.diagnostic.severity));
  for (const problem of sorted) {
    for (const target of problem.targets) {
      const badge = badges.get(target);
      if (badge) {
        badge.messages.push(problem.diagnostic.plain);
      } else {
        badges.set(target, { severity: problem.diagnostic.severity, messages: [problem.diagnostic.plain] });
      }
    }
  }
  return badges;
}

function rank(severity: Severity): number {
  return severity === "error" ? 0 : 1;
}

/** "2 errors, 1 warning" / "No problems". */
export function problemSummary(problems: readonly ShownProblem[]): string {
  const errors = problems.filter((p) => p.diagnostic.severity === "error").length;
  const warnings = problems.length - errors;
  const words = [
    errors ? `${errors} error${errors === 1 ? "" : "s"}` : "",
    warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return words.length ? words.join(", ") : "No problems";
}
