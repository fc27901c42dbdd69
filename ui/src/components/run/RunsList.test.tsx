// @vitest-environment jsdom
// The sidebar's runs: named by what they were asked, with time and how they ended;
// the open crew's only (all crews a click away), and searchable.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunSummary } from "../../bindings/RunSummary";
import { runFound, runTime, RunsList } from "./RunsList";

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
