// @vitest-environment jsdom
// The sidebar's runs: Import recording… is there even before any run, and a run
// shows the tokens it spent when its providers counted any.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunSummary } from "../bindings/RunSummary";
import { Sidebar } from "./Sidebar";

const run = (id: string, input_tokens: number, output_tokens: number): RunSummary => ({
  id,
  crew_name: "Interview",
  input: "Hi",
  status: "terminated",
  created_at: "2026-11-28T10:00:00Z",
  updated_at: "2026-11-28T10:00:05Z",
  steps: 2,
  handoffs: 1,
  error: null,
  tokens: { input_tokens, output_tokens },
});

const noop = () => {};
function sidebar(runs: RunSummary[], onImportRecording = noop) {
  return render(
    <Sidebar
      crews={[]}
      openPath={null}
      onHome={noop}
      onOpen={noop}
      onPick={noop}
      onNew={noop}
      onImport={noop}
      recent={[]}
      runs={runs}
      onOpenRun={noop}
      onImportRecording={onImportRecording}
      onSettings={noop}
    />,
  );
}

afterEach(cleanup);

describe("the sidebar's runs", () => {
  it("offers Import recording… before there is any run", () => {
    const onImport = vi.fn();
    sidebar([], onImport);
    fireEvent.click(screen.getByRole("button", { name: "Import recording…" }));
    expect(onImport).toHaveBeenCalledOnce();
  });

  it("shows a run's tokens when some were spent, and nothing in Simulate mode", () => {
    sidebar([run("run-2", 1000, 234), run("run-1", 0, 0)]);
    const [metered, simulated] = document.querySelectorAll(".runs-list .sidebar-item");
    expect(metered.querySelector(".sidebar-tokens")?.textContent).toBe("1.2K tokens");
    expect(metered.getAttribute("title")).toBe("“Hi” — finished · 1,000 tokens in, 234 out");
    expect(simulated.querySelector(".sidebar-tokens")).toBeNull();
    expect(simulated.getAttribute("title")).toBe("“Hi” — finished");
  });
});
