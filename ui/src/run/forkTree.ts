// The runs list as a tree of forks (issue 18, item 3): a run forked from another
// (`forked_from`) is listed right under it, indented one step further, the forks of
// one run newest first as the list is; a fork whose first run is not listed (another
// crew's, searched away, gone) stays where it was, at the top. Pure: RunsList.tsx
// draws it, saying "forked at Student's reply" under each fork (forkWords).
//
//   nestRuns([fork, other, first]);   // [{other, 0}, {first, 0}, {fork, 1}]
import type { RunSummary } from "../bindings/RunSummary";

export type NestedRun = { run: RunSummary; depth: number };

/** How deep forks are indented at most (a fork of a fork of a fork… stays readable). */
export const MAX_DEPTH = 3;

/** `runs` (newest first) with each fork under the run it came from. */
export function nestRuns(runs: readonly RunSummary[]): NestedRun[] {
  const listed = new Set(runs.map((run) => run.id));
  const children = new Map<string, RunSummary[]>();
  const roots: RunSummary[] = [];
  for (const run of runs) {
    const parent = run.forked_from?.run_id;
    if (parent && parent !== run.id && listed.has(parent)) children.set(parent, [...(children.get(parent) ?? []), run]);
    else roots.push(run);
  }
  const nested: NestedRun[] = [];
  const placed = new Set<string>();
  const place = (run: RunSummary, depth: number) => {
    if (placed.has(run.id)) return;
    placed.add(run.id);
    nested.push({ run, depth: Math.min(depth, MAX_DEPTH) });
    for (const child of children.get(run.id) ?? []) place(child, depth + 1);
  };
  for (const run of roots) place(run, 0);
  // (A loop of forks cannot be stored; were one listed, its runs still show.)
  for (const run of runs) place(run, 0);
  return nested;
}

/** What a fork says under its words: "forked at Student's reply" (the agent, when
 * known, by its name). */
export function forkWords(agent: string | null | undefined, names: (id: string) => string): string {
  return agent ? `forked at ${names(agent)}'s reply` : "forked from another run";
}
