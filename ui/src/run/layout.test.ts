// @vitest-environment jsdom
// The panels' room: the canvas keeps half the window (a third in a short one), and
// how the person left the panels is remembered.
import { beforeEach, describe, expect, it } from "vitest";
import { canvasFloor, clampHeight, DEFAULT_LAYOUT, panelRoom, readLayout, rememberLayout } from "./layout";

beforeEach(() => localStorage.clear());

describe("the canvas's room", () => {
  it("keeps half the window, or a third of a short one (200 % zoom), never under 150 px", () => {
    expect(canvasFloor(900)).toBe(450);
    expect(canvasFloor(720)).toBe(360);
    expect(canvasFloor(450)).toBe(150);
    expect(canvasFloor(300)).toBe(150);
  });

  it("a panel takes what the canvas can spare, at least its own least", () => {
    // 1440×900: the canvas and the dock share 760 px under the header and toolbar.
    expect(panelRoom(760, 900)).toBe(310);
    expect(panelRoom(400, 900)).toBe(150);
    expect(clampHeight(500, 150, 310)).toBe(310);
    expect(clampHeight(90, 150, 310)).toBe(150);
    expect(clampHeight(200, 150, Number.POSITIVE_INFINITY)).toBe(200);
  });
});

describe("the layout remembered", () => {
  it("starts as a new window has it, and keeps each change", () => {
    expect(readLayout()).toEqual(DEFAULT_LAYOUT);
    rememberLayout({ dockOpen: true, dockHeight: 280 });
    rememberLayout({ problemsOpen: false });
    expect(readLayout()).toEqual({ dockOpen: true, dockHeight: 280, problemsOpen: false, problemsHeight: null });
    localStorage.setItem("crewgraph-layout", "{broken");
    expect(readLayout()).toEqual(DEFAULT_LAYOUT);
  });
});
