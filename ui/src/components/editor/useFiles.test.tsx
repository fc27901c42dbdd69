// @vitest-environment jsdom
// The window's check of the open crew's files on disk (useFiles) against a stand-in
// backend: a look at the disk that answers after another crew was opened must not
// bring the first crew back (it did, with "changed by another program", when a run's
// crew was switched while the check was on its way).
import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EditableCrew } from "../../bindings/EditableCrew";
import { editorStore } from "../../editor/store";
import { crewDocument, examCrew } from "../../editor/fixtures";
import { useFiles } from "./useFiles";

const disk = vi.hoisted(() => ({ answer: null as null | ((fingerprint: string) => void), opened: [] as string[] }));

vi.mock("../../backend", () => ({
  BackendError: class extends Error {},
  backend: {
    recentCrews: async () => [],
    guardClose: () => () => {},
    confirm: async () => true,
    editCrew: async (path: string) => {
      disk.opened.push(path);
      return crewAt(path);
    },
    // The disk is slow: the test says when it answers.
    crewDisk: () => new Promise<string>((resolve) => (disk.answer = resolve)),
  },
}));

function crewAt(path: string): EditableCrew {
  return { path, layout: "file", spec: examCrew(), text: null, document: crewDocument(path), positions: {}, disk: `print of ${path}` } as EditableCrew;
}

describe("the open crew's files on disk", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    disk.answer = null;
    disk.opened = [];
  });
  afterEach(() => vi.useRealTimers());

  it("a look at the disk answering after another crew opened leaves the new crew shown", async () => {
    const { result } = renderHook(() => useFiles());
    await act(() => result.current.openPath("/crews/interview.yaml"));
    // The periodic look starts, asking about interview.yaml…
    await act(async () => vi.advanceTimersByTime(3500));
    expect(disk.answer).not.toBeNull();
    // …and before it answers, the person opens another crew.
    await act(() => result.current.openPath("/crews/office-hours.yaml"));
    await act(async () => disk.answer?.("print of /crews/interview.yaml, changed"));
    expect(editorStore.getState().path).toBe("/crews/office-hours.yaml");
    expect(disk.opened).toEqual(["/crews/interview.yaml", "/crews/office-hours.yaml"]);
    expect(result.current.notice).toBeNull();
  });

  it("a crew changed on disk while shown, with nothing unsaved, is read again and says so", async () => {
    const { result } = renderHook(() => useFiles());
    await act(() => result.current.openPath("/crews/interview.yaml"));
    await act(async () => vi.advanceTimersByTime(3500));
    await act(async () => disk.answer?.("print of /crews/interview.yaml, changed"));
    expect(disk.opened).toEqual(["/crews/interview.yaml", "/crews/interview.yaml"]);
    expect(result.current.notice?.text).toBe("This crew was changed by another program; it now shows those changes.");
  });
});
