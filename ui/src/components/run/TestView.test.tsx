// @vitest-environment jsdom
// The Test tab against a stand-in backend: the test runs on the saved crew, says its
// verdict, lists the arrows no run takes and the agents no run reaches with why,
// paints the canvas only while the tab is open, says why it cannot test a crew never
// saved or with problems, and says a refusal in words.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackendError } from "../../backend/Backend";
import type { CrewTest } from "../../bindings/CrewTest";
import { coverageReport } from "../../run/coverageFixtures";
import { coverageStore } from "../../run/coverageStore";
import { TestView } from "./TestView";

const fake = vi.hoisted(() => ({
  tested: [] as string[],
  answer: null as CrewTest | null,
  refusal: null as Error | null,
}));

vi.mock("../../backend", async () => {
  const { BackendError } = await import("../../backend/Backend");
  return {
    BackendError,
    backend: {
      testCrew: async (crew: string) => {
        fake.tested.push(crew);
        if (fake.refusal) throw fake.refusal;
        return fake.answer;
      },
    },
  };
});

const PATH = "/home/ana/crews/exam.yaml";

afterEach(cleanup);
beforeEach(() => {
  Object.assign(fake, { tested: [], answer: coverageReport(), refusal: null });
  coverageStore.getState().follow(null);
});

const press = (name: string) =>
  act(async () => {
    fireEvent.click(screen.getByRole("button", { name }));
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

describe("the Test tab", () => {
  it("tests the saved crew and lists what no run reaches, with why", async () => {
    render(<TestView crewPath={PATH} crewValid />);
    expect(screen.getByText(/Can a run take every arrow\?/)).toBeTruthy();
    await press("Test the routes");
    expect(fake.tested).toEqual([PATH]);
    expect(screen.getByRole("status").textContent).toBe("1 arrow is never taken (3 simulated runs).");
    const legend = screen.getByRole("list", { name: "What the arrows' colours mean" });
    expect(legend.textContent).toContain("never taken");
    expect(legend.textContent).toContain("in all 3 runs");
    const never = screen.getByRole("region", { name: "Arrows no run takes" });
    expect(never.textContent).toContain("Teacher → Student · [ASK]: a reply with [ASK] is taken by teacher's rule on [END_EXAM] first");
    expect(screen.getByRole("region", { name: "Agents no run reaches" }).textContent).toContain("Reporter: no run from Teacher");
    expect(screen.getByText(/the scenarios' replies call none/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Test again" })).toBeTruthy();
  });

  it("paints the canvas while it is open, and stops when it closes", async () => {
    const { unmount } = render(<TestView crewPath={PATH} crewValid />);
    await press("Test the routes");
    expect(coverageStore.getState().shown).toBe(true);
    expect(coverageStore.getState().heats["rule:teacher:2:agent:student"]).toBe("never");
    unmount();
    expect(coverageStore.getState().shown).toBe(false);
    // Opened again on the same crew: the report is still there.
    render(<TestView crewPath={PATH} crewValid />);
    expect(screen.getByRole("status").textContent).toContain("never taken");
  });

  it("says why it cannot test a crew never saved, or one with problems", () => {
    const { rerender } = render(<TestView crewPath={null} crewValid />);
    expect(screen.getByRole("status").textContent).toBe("Save the crew first: the test runs the saved file.");
    expect((screen.getByRole("button", { name: "Test the routes" }) as HTMLButtonElement).disabled).toBe(true);
    rerender(<TestView crewPath={PATH} crewValid={false} />);
    expect(screen.getByRole("status").textContent).toBe("Fix the crew's problems first (they are listed under the graph).");
    rerender(<TestView crewPath={PATH} crewValid unsaved />);
    expect(screen.getByText("Tests the crew as last saved. Save to test your changes.")).toBeTruthy();
  });

  it("says a refusal in words", async () => {
    fake.refusal = new BackendError("invalid_crew", "the crew has errors and cannot be tested");
    render(<TestView crewPath={PATH} crewValid />);
    await press("Test the routes");
    expect(screen.getByRole("alert").textContent).toBe(
      "The test could not be made: The crew has problems to fix before its routes can be tested (see the problems list).",
    );
  });
});
