// @vitest-environment jsdom
// The transcript follows the newest words, unless the person scrolled up to read.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { examRun } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { Transcript } from "./Transcript";

afterEach(cleanup);
beforeEach(() => {
  open(examCrew(), examDocument());
  runStore.getState().reset();
  runStore.getState().begin("run-1");
});

/** jsdom lays nothing out: the log's box is given a size, and a content height
 * that grows with each turn. */
function sized(log: HTMLElement) {
  Object.defineProperty(log, "clientHeight", { configurable: true, get: () => 200 });
  Object.defineProperty(log, "scrollHeight", { configurable: true, get: () => 100 + 150 * log.querySelectorAll("article").length });
}

const feed = (from: number, to: number) => act(() => runStore.getState().apply({ events: examRun().slice(from, to), end: null, lost_from: null }));

describe("Transcript scrolling", () => {
  it("stays at the bottom as words arrive", () => {
    render(<Transcript />);
    const log = screen.getByRole("log");
    sized(log);
    feed(0, 10);
    expect(log.scrollTop).toBe(log.scrollHeight);
    feed(10, 20);
    expect(log.scrollTop).toBe(log.scrollHeight);
  });

  it("stays where the person scrolled up to, and follows again once they are back at the bottom", () => {
    render(<Transcript />);
    const log = screen.getByRole("log");
    sized(log);
    feed(0, 10);
    log.scrollTop = 40;
    fireEvent.scroll(log);
    feed(10, 20);
    expect(log.scrollTop).toBe(40);
    log.scrollTop = log.scrollHeight - 200;
    fireEvent.scroll(log);
    feed(20, 35);
    expect(log.scrollTop).toBe(log.scrollHeight);
  });

  it("says what to do before anything has run", () => {
    runStore.getState().reset();
    render(<Transcript />);
    expect(screen.getByRole("log").textContent).toMatch(/^Nothing has run yet/);
  });
});
