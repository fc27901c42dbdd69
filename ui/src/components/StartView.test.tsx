// @vitest-environment jsdom
// The start view: each example says in one line what it shows and offers Try it (no
// model) and Run, which ask for the crew to be opened and started; a crew with
// problems to fix offers only to open it.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CrewSummary } from "../bindings/CrewSummary";
import { examGraph } from "../graph/fixtures";
import { resetModels } from "../models/store";
import { StartView } from "./StartView";

vi.mock("../backend", () => ({
  backend: {
    listModels: async () => [
      { name: "local", provider: "local", model: "SmolLM2", base_url: "", default: false, key: null, key_name: null, reachable: null, problem: null },
      { name: "fast", provider: "openai", model: "gpt-4o-mini", base_url: "", default: true, key: null, key_name: null, reachable: null, problem: null },
    ],
  },
}));

const summary = (file: string, name: string, description: string, errors = 0): CrewSummary => ({
  path: `/crews/${file}`,
  file_name: file,
  name,
  description,
  strategy: "signals",
  layout: "file",
  agents: 3,
  errors,
  warnings: 0,
  graph: examGraph,
});

afterEach(cleanup);
beforeEach(resetModels);

describe("the start view", () => {
  it("offers each example with its one line, Try it (no model) and Run", async () => {
    const launch = vi.fn();
    const open = vi.fn();
    render(
      <StartView
        crews={[summary("exam.yaml", "Fractions exam", "A teacher asks, a student answers, a reporter keeps score.")]}
        folder="/crews"
        onOpen={open}
        onPick={() => {}}
        onLaunch={launch}
      />,
    );
    expect(screen.getByText("A teacher asks, a student answers, a reporter keeps score.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Try Fractions exam (no model)" }));
    expect(launch).toHaveBeenLastCalledWith("/crews/exam.yaml", true);
    const run = screen.getByRole("button", { name: "Run Fractions exam" });
    expect(await screen.findByTitle("Open it and run it on fast")).toBe(run);
    fireEvent.click(run);
    expect(launch).toHaveBeenLastCalledWith("/crews/exam.yaml", false);
    fireEvent.click(screen.getByText("Fractions exam"));
    expect(open).toHaveBeenCalledWith("/crews/exam.yaml");
    // A model of one's own is the default: the guided start is one line.
    expect(await screen.findByRole("region", { name: "The model agents use" })).toBeTruthy();
  });

  it("offers only to open a crew that has problems to fix", () => {
    render(<StartView crews={[summary("broken.yaml", "Broken crew", "", 2)]} folder="/crews" onOpen={() => {}} onPick={() => {}} onLaunch={() => {}} />);
    expect(screen.getByText("2 to fix")).toBeTruthy();
    expect(screen.getByText("No description.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /^Run / })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Try / })).toBeNull();
  });
});
