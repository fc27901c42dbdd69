// @vitest-environment jsdom
// The window is told while the canvas shows a large crew (useLargeCanvas), so that
// without a GPU it composites the page for as long, and told again once it no longer
// does; a small crew tells it nothing.
import { renderHook } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { useLargeCanvas } from "./useLargeCanvas";

const told = vi.hoisted(() => [] as boolean[]);

vi.mock("../../backend", () => ({
  backend: { largeCanvas: (shown: boolean) => told.push(shown) },
}));

describe("useLargeCanvas", () => {
  beforeEach(() => {
    told.length = 0;
  });

  it("says nothing while the crew is small", () => {
    const { rerender, unmount } = renderHook(({ large }) => useLargeCanvas(large), { initialProps: { large: false } });
    rerender({ large: false });
    unmount();
    expect(told).toEqual([]);
  });

  it("says a large canvas is shown, then that it no longer is when the crew shrinks or closes", () => {
    const { rerender, unmount } = renderHook(({ large }) => useLargeCanvas(large), { initialProps: { large: true } });
    expect(told).toEqual([true]);
    rerender({ large: true });
    expect(told).toEqual([true]);
    rerender({ large: false });
    expect(told).toEqual([true, false]);
    rerender({ large: true });
    unmount();
    expect(told).toEqual([true, false, true, false]);
  });
});
