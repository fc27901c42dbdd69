// Problems found by the engine, gathered per node and edge so each can wear a badge.
import type { ProblemView } from "../bindings/ProblemView";
import type { Severity } from "../bindings/Severity";

export type Badge = {
  severity: Severity;
  /** The plain-words messages, worst first. */
  messages: string[];
};

/** Badges keyed by node or edge id; an error outranks a warning. */
export function badgesByTarget(problems: ProblemView[]): Map<string, Badge> {
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
export function problemSummary(problems: ProblemView[]): string {
  const errors = problems.filter((p) => p.diagnostic.severity === "error").length;
  const warnings = problems.length - errors;
  const words = [
    errors ? `${errors} error${errors === 1 ? "" : "s"}` : "",
    warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return words.length ? words.join(", ") : "No problems";
}
