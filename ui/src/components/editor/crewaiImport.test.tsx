// @vitest-environment jsdom
// Import CrewAI project… in the window: the crew made from the project opens as a new,
// unsaved crew (as Import does), the banner says where it came from and what the run
// asks for, and each warning is listed with its file:line:col; a project that cannot
// be imported, or a cancelled choice, leaves the editor as it was.
import { act, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ImportedCrew } from "../../bindings/ImportedCrew";
import { editorStore } from "../../editor/store";
import { importedNotice } from "./crewaiImport";
import { ImportReport } from "./ImportReport";
import { useFiles } from "./useFiles";

const fake = vi.hoisted(() => ({
  project: null as null | { name: string | null; files: Array<{ name: string; text: string }> },
  answer: null as unknown,
  asked: [] as unknown[],
}));

vi.mock("../../backend", () => ({
  BackendError: class extends Error {},
  backend: {
    recentCrews: async () => [],
    guardClose: () => () => {},
    confirm: async () => true,
    pickCrewAiProject: async () => fake.project,
    importCrewAi: async (files: unknown, name: unknown) => {
      fake.asked.push([files, name]);
      if (fake.answer instanceof Error) throw fake.answer;
      return fake.answer;
    },
  },
}));

const warning = {
  severity: "warning" as const,
  location: { file: "config/agents.yaml", line: 6, column: 7 },
  message: "agent 'researcher' uses the tool 'SerperDevTool', a Python tool of CrewAI that Crewgraph cannot run; it is left out",
};

function imported(overrides: Partial<ImportedCrew> = {}): ImportedCrew {
  return {
    name: "Latest ai development",
    file_name: "latest-ai-development.yaml",
    yaml: "name: Latest ai development\n",
    spec: { version: "1.0", name: "Latest ai development", entry_point: "researcher", agents: [{ id: "researcher" }] },
    process: "sequential",
    warnings: [warning],
    inputs: ["topic", "current_year"],
    ...overrides,
  } as ImportedCrew;
}

describe("Import CrewAI project…", () => {
  beforeEach(() => {
    fake.project = { name: "latest_ai_development", files: [{ name: "config/agents.yaml", text: "researcher: {}\n" }] };
    fake.answer = imported();
    fake.asked = [];
    editorStore.setState({ dirty: false, path: null });
  });

  it("opens the imported crew unsaved, says what the run asks for and lists what was left out", async () => {
    const { result } = renderHook(() => useFiles());
    await act(() => result.current.importCrewAi());
    expect(fake.asked).toEqual([[fake.project?.files, "latest_ai_development"]]);
    expect(result.current.open).toBe(true);
    const state = editorStore.getState();
    expect(state.path).toBeNull();
    expect(state.dirty).toBe(true);
    expect(state.spec?.name).toBe("Latest ai development");
    expect(result.current.notice?.text).toContain('write topic, current_year in the input (for example "topic: …")');
    expect(result.current.importReport?.warnings).toEqual([warning]);
    act(() => result.current.dismiss());
    expect(result.current.importReport).toBeNull();
  });

  it("says in words why a project could not be imported, and opens nothing", async () => {
    fake.answer = new Error("tasks.yaml:9:10: error: task 'writing_task' is for agent 'writer', but agents.yaml has no agent called 'writer'");
    const { result } = renderHook(() => useFiles());
    await act(() => result.current.importCrewAi());
    expect(result.current.open).toBe(false);
    expect(result.current.notice).toEqual({
      kind: "error",
      text: "Could not import the CrewAI project: tasks.yaml:9:10: error: task 'writing_task' is for agent 'writer', but agents.yaml has no agent called 'writer'",
    });
    expect(result.current.importReport).toBeNull();
  });

  it("asks nothing of the engine when the person cancels the choice", async () => {
    fake.project = null;
    const { result } = renderHook(() => useFiles());
    await act(() => result.current.importCrewAi());
    expect(fake.asked).toEqual([]);
    expect(result.current.notice).toBeNull();
  });

  it("the banner says how the tasks run, how much could not come along, and what to write in the input", () => {
    expect(importedNotice(imported())).toBe(
      'Imported "Latest ai development" from CrewAI: its tasks run one after another. 1 thing could not come along (listed below). When you run it, write topic, current_year in the input (for example "topic: …"). Save it to choose where it lives.',
    );
    expect(importedNotice(imported({ process: "hierarchical", warnings: [], inputs: [] }))).toBe(
      'Imported "Latest ai development" from CrewAI: a manager and a router model share out the tasks. Everything came along. Save it to choose where it lives.',
    );
  });

  it("lists each warning with its file:line:col, and goes when dismissed", () => {
    const dismissed = vi.fn();
    render(<ImportReport report={{ name: "Latest ai development", warnings: [warning] }} onDismiss={dismissed} />);
    const item = screen.getByText("config/agents.yaml:6:7").closest("li");
    expect(item?.textContent).toContain("uses the tool 'SerperDevTool'");
    fireEvent.click(screen.getByRole("button", { name: "Dismiss the import's warnings" }));
    expect(dismissed).toHaveBeenCalledOnce();
  });
});
