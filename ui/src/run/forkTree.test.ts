// The sidebar's runs as a tree of forks: each fork right under the run it came from
// (newest fork first, as the list is), a fork of a fork one step further in, a fork
// whose first run is not listed at the top as before; and what a fork says.
import { describe, expect, it } from "vitest";
import type { RunSummary } from "../bindings/RunSummary";
import { forkWords, MAX_DEPTH, nestRuns } from "./forkTree";

const run = (id: string, forkedFrom?: string): RunSummary => ({
  id,
  crew_name: "Office hours",
  input: "Help me with fractions",
  status: "terminated",
  created_at: "2026-11-28T10:00:00Z",
  updated_at: "2026-11-28T10:00:05Z",
  steps: 3,
  handoffs: 2,
  error: null,
  tokens: { input_tokens: 0, output_tokens: 0 },
  ...(forkedFrom ? { forked_from: { run_id: forkedFrom, seq: 6 as unknown as bigint } } : {}),
});

const order = (runs: RunSummary[]) => nestRuns(runs).map(({ run, depth }) => `${run.id}:${depth}`);

describe("nestRuns", () => {
  it("lists each fork under the run it came from, newest first, its parent listed as before", () => {
    // Newest first: two forks of r1 (f2 the newer), another run r2 in between.
    expect(order([run("f2", "r1"), run("r2"), run("f1", "r1"), run("r1")])).toEqual(["r2:0", "r1:0", "f2:1", "f1:1"]);
  });

  it("a fork of a fork goes one step further in, up to a limit", () => {
    expect(order([run("ff", "f"), run("f", "r"), run("r")])).toEqual(["r:0", "f:1", "ff:2"]);
    const chain = [run("r0")];
    for (let i = 1; i <= MAX_DEPTH + 2; i++) chain.unshift(run(`r${i}`, `r${i - 1}`));
    expect(Math.max(...nestRuns(chain).map((n) => n.depth))).toBe(MAX_DEPTH);
  });

  it("a fork whose first run is not listed stays at the top, where it was", () => {
    expect(order([run("f", "gone"), run("r")])).toEqual(["f:0", "r:0"]);
  });

  it("keeps every run once, even a (never stored) loop of forks", () => {
    expect(order([run("a", "b"), run("b", "a")]).sort()).toEqual(["a:0", "b:1"]);
  });
});

describe("forkWords", () => {
  it("names the agent whose reply was replaced, by its name when the crew has it", () => {
    const names = (id: string) => ({ student: "Student" })[id] ?? id;
    expect(forkWords("student", names)).toBe("forked at Student's reply");
    expect(forkWords(null, names)).toBe("forked from another run");
  });
});
