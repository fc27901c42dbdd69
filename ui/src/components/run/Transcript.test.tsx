// @vitest-environment jsdom
// The transcript follows the newest words, unless the person scrolled up to read.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { examCrew } from "../../editor/fixtures";
import { type EventBody, events, examRun } from "../../run/fixtures";
import { runStore } from "../../run/store";
import { examDocument, open } from "../inspector/testing";
import { Transcript } from "./Transcript";
import { FOLLOW_LINES, followedLines, SHOWN_LINES } from "./useFollowing";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});
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

  it("keeps only the newest turns in the page while it follows them, and shows more, in place, once the person scrolls up", () => {
    render(<Transcript />);
    const log = screen.getByRole("log");
    sized(log);
    // The teacher and the student taking 60 turns each: 120 turns.
    const bodies: EventBody[] = [{ type: "run_started", crew: "Fractions exam", input: "Begin." }];
    for (let step = 1; step <= 120; step++) {
      const agent = step % 2 ? "teacher" : "student";
      bodies.push({ type: "agent_started", agent, step }, { type: "agent_response", agent, content: `Turn ${step}` });
    }
    act(() => runStore.getState().apply({ events: events(bodies), end: null, lost_from: null }));
    const turns = () => [...log.querySelectorAll("article")].map((a) => a.textContent?.match(/Turn \d+/)?.[0]);
    expect(turns()).toHaveLength(FOLLOW_LINES);
    expect(turns().at(-1)).toBe("Turn 120");
    expect(log.scrollTop).toBe(log.scrollHeight);
    expect(screen.getByRole("button", { name: `Show the ${120 - FOLLOW_LINES} earlier turns and notes` })).toBeTruthy();

    // Scrolled up by 300 px: the newest SHOWN_LINES turns, and the view still 300 px
    // above the bottom (on the same turns).
    log.scrollTop = log.scrollHeight - log.clientHeight - 300;
    fireEvent.scroll(log);
    expect(turns()).toHaveLength(SHOWN_LINES);
    expect(log.scrollHeight - log.scrollTop - log.clientHeight).toBe(300);

    // Back at the bottom: it follows again, with the short list.
    log.scrollTop = log.scrollHeight - log.clientHeight;
    fireEvent.scroll(log);
    expect(turns()).toHaveLength(FOLLOW_LINES);
  });

  it("keeps, while it follows, only the turns its box can show, measured again when the box changes size", () => {
    // jsdom has no ResizeObserver: one that reports the box's height as the page would.
    const observed: Array<(height: number) => void> = [];
    vi.stubGlobal(
      "ResizeObserver",
      class {
        constructor(private readonly report: ResizeObserverCallback) {}
        observe() {
          observed.push((height) => this.report([{ contentRect: { height } } as ResizeObserverEntry], this as unknown as ResizeObserver));
        }
        disconnect() {}
      },
    );
    render(<Transcript />);
    const log = screen.getByRole("log");
    sized(log);
    const bodies: EventBody[] = [{ type: "run_started", crew: "Fractions exam", input: "Begin." }];
    for (let step = 1; step <= 60; step++) bodies.push({ type: "agent_started", agent: "teacher", step }, { type: "agent_response", agent: "teacher", content: `Turn ${step}` });
    act(() => runStore.getState().apply({ events: events(bodies), end: null, lost_from: null }));
    const turns = () => [...log.querySelectorAll("article")].map((a) => a.textContent?.match(/Turn \d+/)?.[0]);
    expect(turns()).toHaveLength(FOLLOW_LINES); // not measured yet

    act(() => observed[0](200));
    expect(turns()).toHaveLength(followedLines(200, 36));
    expect(turns().at(-1)).toBe("Turn 60");
    expect(log.scrollTop).toBe(log.scrollHeight);
    // A taller dock shows more.
    act(() => observed[0](600));
    expect(turns()).toHaveLength(followedLines(600, 36));
    expect(log.scrollTop).toBe(log.scrollHeight);
  });

  it("counts the lines a box holds: every one that fits, one cut by the top edge, the button above; four at least", () => {
    expect(followedLines(200, 36)).toBe(8);
    expect(followedLines(180, 36)).toBe(7);
    expect(followedLines(600, 32)).toBe(21);
    expect(followedLines(10, 36)).toBe(4);
  });

  it("says what to do before anything has run", () => {
    runStore.getState().reset();
    render(<Transcript />);
    expect(screen.getByRole("log").textContent).toMatch(/^Nothing has run yet/);
  });
});
