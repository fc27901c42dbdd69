// The operations written once for both transports pass a run's breakpoints through
// as they are: on start, and on resume with one turn (`step`) — the fields the
// generated requests have, sent as the person chose them.
import { describe, expect, it, vi } from "vitest";
import { operationMethods, type Transport } from "./operations";

function transport() {
  const calls: [string, unknown][] = [];
  const call = vi.fn(async (name: string, request: unknown) => {
    calls.push([name, request]);
    return name === "start_run" ? { run_id: "run-1" } : null;
  });
  const watch = vi.fn(async () => {});
  return { calls, watch, methods: operationMethods({ call, watch } as unknown as Transport) };
}

describe("stepping through a run, over either transport", () => {
  it("starts a run with the agents to pause before", async () => {
    const { calls, methods } = transport();
    await methods.startRun({ crew: "exam.yaml", input: "Go.", breakpoints: ["student"] }, () => {});
    expect(calls).toEqual([["start_run", { crew: "exam.yaml", input: "Go.", breakpoints: ["student"] }]]);
  });

  it("resumes for one turn, with words, and the breakpoints changed (none)", async () => {
    const { calls, watch, methods } = transport();
    await methods.resumeRun("run-1", { input: "Be brief.", step: true, breakpoints: [] }, 7, () => {});
    expect(calls).toEqual([["resume_run", { input: "Be brief.", step: true, breakpoints: [], id: "run-1" }]]);
    expect(watch).toHaveBeenCalledWith("run-1", 7, expect.any(Function));
  });
});
