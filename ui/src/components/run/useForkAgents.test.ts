// @vitest-environment jsdom
// The sidebar's "forked at Student's reply": the agent is read once from the first
// run's events, and the list shows it when the answer comes — also when the runs
// listed changed while it was asked (a run's end refreshes the list).
import { act, renderHook } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { RunSummary } from "../../bindings/RunSummary";
import { useForkAgents } from "./useForkAgents";

const asked = vi.hoisted(() => ({ answer: (_events: unknown[]) => {}, count: 0 }));

vi.mock("../../backend", () => ({
  backend: {
    runEvents: () =>
      new Promise((answer) => {
        asked.count += 1;
        asked.answer = answer;
      }),
  },
}));

const run = (id: string, forked?: boolean) => ({ id, forked_from: forked ? { run_id: "first", seq: 3 } : undefined }) as unknown as RunSummary;

describe("useForkAgents", () => {
  it("shows whose reply a fork replaced once the first run's events are read, though the list changed meanwhile", async () => {
    const { result, rerender } = renderHook(({ runs }) => useForkAgents(runs), { initialProps: { runs: [run("first"), run("fork", true)] } });
    expect(result.current).toEqual({ fork: null });
    // The list refreshed while the first run's events were being read.
    rerender({ runs: [run("first"), run("fork", true), run("third")] });
    await act(async () => asked.answer([{ seq: 3, type: "agent_response", agent: "student" }]));
    expect(result.current).toEqual({ fork: "student" });
    expect(asked.count).toBe(1);
  });
});
