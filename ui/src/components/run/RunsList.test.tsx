// @vitest-environment jsdom
// The sidebar's runs: named by what they were asked, with time and how they ended;
// the open crew's only (all crews a click away), and searchable.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunSummary } from "../../bindings/RunSummary";
import { runFound, runTime, RunsList } from "./RunsList";

// A fork says whose reply it was forked at: read from its first run's events.
vi.mock("../../backend", () => ({
  backend: {
    runEvents: async (id: string) =>
      id === "r1" ? [{ type: "agent_response", agent: "student", content: "What is 1/2? [QUESTION]", run_id: "r1", seq: 6, timestamp: "2026-11-28T10:00:01Z" }] : [],
  },
}));

afterEach(cleanup);

const run = (id: string, input: string, crew_name: string, status: RunSummary["status"] = "terminated"): RunSummary => ({
  id,
  crew_name,
  input,
  status,
  created_at: "2026-11-28T10:00:00Z",
  updated_at: "2026-11-28T10:00:05Z",
  steps: 2,
  handoffs: 1,
  error: null,
  tokens: { input_tokens: 0, output_tokens: 0 },
});

const runs = [run("r3", "Interview me about colours", "Interview"), run("r2", "Give me a short exam", "Fractions exam", "failed"), run("r1", "Interview me about cats", "Interview")];
const crews: Record<string, string> = { r3: "/crews/interview.yaml", r2: "/crews/exam.yaml", r1: "/crews/interview.yaml" };
const listed = () => [...document.querySelectorAll(".sidebar-run-input")].map((el) => el.textContent);

describe("RunsList", () => {
  it("shows the open crew's runs, named by their input; all crews a click away", () => {
    const onOpenRun = vi.fn();
    render(<RunsList runs={runs} openPath="/crews/interview.yaml" crewOf={(r) => crews[r.id]} onOpenRun={onOpenRun} />);
    expect(listed()).toEqual(["Interview me about colours", "Interview me about cats"]);
    fireEvent.click(screen.getByRole("radio", { name: "All crews" }));
    expect(listed()).toEqual(["Interview me about colours", "Give me a short exam", "Interview me about cats"]);
    expect(document.querySelectorAll(".sidebar-run-when")[1].textContent).toMatch(/ · failed · Fractions exam$/);
    fireEvent.click(screen.getByTitle("“Give me a short exam” — failed"));
    expect(onOpenRun).toHaveBeenCalledWith(runs[1]);
  });

  it("finds runs by what they were asked, their crew and how they ended", () => {
    render(<RunsList runs={runs} openPath={null} crewOf={() => undefined} onOpenRun={() => {}} />);
    fireEvent.change(screen.getByRole("searchbox", { name: "Search runs" }), { target: { value: "cats" } });
    expect(listed()).toEqual(["Interview me about cats"]);
    fireEvent.change(screen.getByRole("searchbox", { name: "Search runs" }), { target: { value: "dogs" } });
    expect(screen.getByText("No run matches “dogs”.")).toBeTruthy();
    expect(runFound(runs[1], "exam failed")).toBe(true);
  });

  it("says which revision of its crew a run ran, when it is known", () => {
    render(<RunsList runs={[{ ...runs[0], crew_revision: 3 }, runs[2]]} openPath={null} crewOf={() => undefined} onOpenRun={() => {}} />);
    const when = [...document.querySelectorAll(".sidebar-run-when")].map((el) => el.textContent);
    expect(when[0]).toMatch(/ · finished · revision 3 · Interview$/);
    expect(when[1]).not.toMatch(/revision/);
  });

  it("lists a fork under the run it came from, indented, saying whose reply it was forked at; each a button", async () => {
    const fork: RunSummary = { ...run("f1", "Interview me about cats", "Interview"), forked_from: { run_id: "r1", seq: 6 as unknown as bigint } };
    const onOpenRun = vi.fn();
    render(<RunsList runs={[fork, ...runs]} openPath={null} crewOf={() => undefined} onOpenRun={onOpenRun} />);
    const items = [...document.querySelectorAll<HTMLElement>(".runs-list li")];
    expect(items.map((li) => li.querySelector("[data-run]")?.getAttribute("data-run"))).toEqual(["r3", "r2", "r1", "f1"]);
    expect(items[3].className).toBe("run-fork");
    expect(items[3].style.marginLeft).toBe("12px");
    await waitFor(() => expect(items[3].querySelector(".sidebar-run-fork")?.textContent).toBe("forked at student's reply"));
    expect(items[2].querySelector(".sidebar-run-fork")).toBeNull();
    fireEvent.click(items[3].querySelector("button") as HTMLButtonElement);
    expect(onOpenRun).toHaveBeenCalledWith(fork);
  });

  it("a crew without runs says how to make one", () => {
    render(<RunsList runs={runs} openPath="" crewOf={(r) => crews[r.id]} onOpenRun={() => {}} />);
    expect(screen.getByText(/No runs of this crew yet/)).toBeTruthy();
  });

  it("says the time alone today, with the day otherwise", () => {
    const at = new Date(2026, 10, 28, 10, 5);
    expect(runTime(at.toISOString(), new Date(2026, 10, 28, 18, 0))).not.toMatch(/Nov/);
    expect(runTime(at.toISOString(), new Date(2026, 10, 30, 9, 0))).toMatch(/Nov/);
  });
});
