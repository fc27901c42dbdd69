// @vitest-environment jsdom
// The canvas's right-click menus: what each offers (menuFor), and the menu itself
// by keyboard (ContextMenu); the unsaved-changes question with Save (UnsavedDialog).
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { examRun } from "../../run/fixtures";
import { closeSeen, seenStore } from "../../run/seen";
import { runStore } from "../../run/store";
import { editorStore } from "../../editor/store";
import { chosenBreakpoints } from "../../run/breakpoints";
import { examDocument } from "../inspector/testing";
import { menuFor, type MenuActions } from "./canvasMenus";
import { ContextMenu } from "./ContextMenu";
import { UnsavedDialog } from "./UnsavedDialog";
import { askUnsaved } from "./unsaved";

afterEach(cleanup);

const actions = (): MenuActions => ({
  addHere: vi.fn(),
  paste: vi.fn(),
  canPaste: false,
  tidy: vi.fn(),
  fit: vi.fn(),
  edit: vi.fn(),
  tryAgent: vi.fn(),
  connectFrom: vi.fn(),
  duplicate: vi.fn(),
  remove: vi.fn(),
  repoint: vi.fn(),
});
const labels = (items: { label: string; disabled?: boolean }[]) => items.map((i) => (i.disabled ? `(${i.label})` : i.label));

describe("menuFor", () => {
  const graph = examDocument().graph;

  it("offers on the canvas what the toolbar does, Paste only with something copied", () => {
    expect(labels(menuFor({ kind: "canvas" }, examCrew(), graph, actions()).items)).toEqual(["Add agent here", "(Paste)", "Tidy up", "Fit"]);
  });

  it("offers on a card what can be done with that agent", () => {
    const act = actions();
    const menu = menuFor({ kind: "node", id: "agent:teacher" }, examCrew(), graph, act);
    expect(menu.label).toBe("Agent Teacher");
    // (A crew never saved: a run needs its file, so no pausing before it yet.)
    expect(labels(menu.items)).toEqual(["Edit", "Try this agent", "(Pause before Teacher)", "Connect to…", "Duplicate", "Delete"]);
    menu.items[1].onSelect();
    expect(act.tryAgent).toHaveBeenCalledWith("teacher");
  });

  it("offers on a card, once its agent's turn in the run shown is over, what it saw", () => {
    runStore.getState().begin("run-1");
    runStore.getState().apply({ events: examRun().slice(0, 10), end: null, lost_from: null });
    const menu = menuFor({ kind: "node", id: "agent:student" }, examCrew(), graph, actions());
    expect(labels(menu.items)).toEqual(["Edit", "Try this agent", "What Student saw", "(Pause before Student)", "Connect to…", "Duplicate", "Delete"]);
    menu.items[2].onSelect();
    expect(seenStore.getState().open).toMatchObject({ runId: "run-1", step: 2, agent: "student" });
    // The reporter is at work: nothing to show of it yet.
    expect(labels(menuFor({ kind: "node", id: "agent:reporter" }, examCrew(), graph, actions()).items)).not.toContain("What Reporter saw");
    closeSeen();
    runStore.getState().reset();
  });

  it("offers on an agent added while the app runs only what leaves the crew's file alone", () => {
    const runtime = { ...graph, nodes: [...graph.nodes, { ...graph.nodes[1], id: "agent:gardener", label: "Gardener", agent: "gardener", entry: false }] };
    expect(labels(menuFor({ kind: "node", id: "agent:gardener" }, examCrew(), runtime, actions()).items)).toEqual(["Edit", "Try this agent", "(Pause before Gardener)"]);
  });

  it("toggles pausing before an agent, for the crew open, the words saying which way", () => {
    editorStore.setState({ path: "/crews/exam.yaml" });
    const menu = () => menuFor({ kind: "node", id: "agent:student" }, examCrew(), graph, actions());
    const item = () => menu().items.find((i) => /pause before Student/i.test(i.label));
    expect(item()?.label).toBe("Pause before Student");
    item()?.onSelect();
    expect(chosenBreakpoints("/crews/exam.yaml")).toEqual(["student"]);
    expect(item()?.label).toBe("Don't pause before Student");
    // Another crew keeps its own.
    expect(chosenBreakpoints("/crews/other.yaml")).toEqual([]);
    item()?.onSelect();
    expect(chosenBreakpoints("/crews/exam.yaml")).toEqual([]);
    editorStore.setState({ path: null });
  });

  it("offers re-pointing on arrows that can lead elsewhere", () => {
    expect(labels(menuFor({ kind: "edge", id: "rule:teacher:0:group:exam_round" }, examCrew(), graph, actions()).items)).toEqual([
      "Edit",
      "Re-point to another group…",
      "Delete",
    ]);
    expect(labels(menuFor({ kind: "edge", id: "rule:teacher:1:end" }, examCrew(), graph, actions()).items)).toEqual(["Edit", "Delete"]);
    expect(labels(menuFor({ kind: "edge", id: "next:exam_round:teacher" }, examCrew(), graph, actions()).items)).toEqual([
      "Edit",
      "Re-point to another agent…",
      "Delete",
    ]);
  });
});

describe("ContextMenu", () => {
  it("opens with its first item focused, moves with the arrow keys, and Escape gives the focus back", () => {
    const opener = document.createElement("button");
    document.body.append(opener);
    opener.focus();
    const onClose = vi.fn();
    const chosen = vi.fn();
    render(
      <ContextMenu
        at={{ x: 10, y: 10 }}
        label="Agent Teacher"
        items={[
          { label: "Edit", onSelect: chosen },
          { label: "Paste", disabled: true, onSelect: chosen },
          { label: "Delete", onSelect: chosen },
        ]}
        onClose={onClose}
      />,
    );
    expect(screen.getByRole("menu", { name: "Agent Teacher" })).toBeTruthy();
    expect(document.activeElement?.textContent).toBe("Edit");
    fireEvent.keyDown(document.activeElement as Element, { key: "ArrowDown" });
    // (The disabled item is skipped.)
    expect(document.activeElement?.textContent).toBe("Delete");
    fireEvent.keyDown(document.activeElement as Element, { key: "Escape" });
    expect(onClose).toHaveBeenCalled();
    expect(document.activeElement).toBe(opener);
    expect(chosen).not.toHaveBeenCalled();
    opener.remove();
  });
});

describe("the unsaved-changes question", () => {
  it("is asked in the window, with Save besides Discard and Cancel", async () => {
    // Nobody shows it: the caller asks another way.
    expect(askUnsaved("Open another crew")).toBeNull();
    render(<UnsavedDialog />);
    const answer = askUnsaved("Open another crew");
    expect(answer).not.toBeNull();
    const buttons = (await screen.findAllByRole("button")).map((b) => b.textContent);
    expect(buttons).toEqual(["Cancel", "Discard changes", "Save"]);
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await expect(answer).resolves.toBe("save");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
