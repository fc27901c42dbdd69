// A log that follows its newest lines (the transcript, the tracker): it stays at
// the bottom as lines arrive, unless the person scrolled up to read, and follows
// again once they are back at the bottom. While it follows, only the lines that can
// show in its box need to be in the page — the rest are above, out of sight — so a
// fast run lays out and draws a short list each update, not a long one
// (BENCHMARKS.md, "The window's footprint", "Only the lines that show"): as many as
// the box holds at the log's smallest line height, measured from the box whenever
// it changes size (FOLLOW_LINES until it is measured). Once the person scrolls up, the
// log shows more, and keeps the lines they were looking at where they were.
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Lines kept in the page while the log follows, before its box is measured (or
 * where nothing is laid out): more than fill the tallest dock. */
export const FOLLOW_LINES = 24;

/** The fewest lines kept while following, however small the box. */
const LEAST_FOLLOWED = 4;

/** Lines kept while following in a box `height` px tall whose lines are at least
 * `leastLinePx` tall (with the gap between them): as many as fit, one more for the
 * line cut by the top edge, one for the "Show the earlier" button. */
export function followedLines(height: number, leastLinePx: number): number {
  return Math.max(LEAST_FOLLOWED, Math.ceil(height / leastLinePx) + 2);
}

/** Lines kept once the person scrolls up to read: a long run keeps its newest ones,
 * the rest a click away, so each batch of events redraws a bounded list. */
export const SHOWN_LINES = 100;

/** Within this many pixels of the bottom counts as "at the bottom". */
const stickiness = 24;

export type Following<T extends HTMLElement> = {
  ref: RefObject<T | null>;
  onScroll: () => void;
  /** The newest lines to keep in the page: those its box holds while the log
   * follows (FOLLOW_LINES before it is measured), SHOWN_LINES once the person
   * scrolled up to read (or was sent further back). */
  kept: number;
  /** Stops following, as when a line further back is brought into view. */
  stopFollowing: () => void;
};

/** Follows the bottom of the scrolled box `ref` whenever `content` changes; a new
 * `subject` (another run) follows again. `leastLinePx`: the log's smallest line
 * with the gap after it, in CSS pixels (its stylesheet's, kept low rather than high:
 * too few lines would leave the top of the box empty). */
export function useFollowing<T extends HTMLElement>(content: unknown, subject: unknown, leastLinePx: number): Following<T> {
  const ref = useRef<T>(null);
  /** The box's height, once measured. */
  const [height, setHeight] = useState<number | null>(null);
  const following = useRef(true);
  /** How far above the bottom the person's view was, to keep it there when more
   * lines appear above it. */
  const fromBottom = useRef(0);
  const [reading, setReading] = useState(false);

  const onScroll = useCallback(() => {
    const box = ref.current;
    if (!box) return;
    fromBottom.current = box.scrollHeight - box.scrollTop - box.clientHeight;
    following.current = fromBottom.current <= stickiness;
    setReading(!following.current);
  }, []);

  const stopFollowing = useCallback(() => {
    following.current = false;
    setReading(true);
  }, []);

  const followed = height === null ? FOLLOW_LINES : followedLines(height, leastLinePx);

  // New lines, or more or fewer of them kept (the box changed size): stay at the
  // bottom, unless the person scrolled up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: content and followed are the triggers (new lines to scroll to)
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && following.current) box.scrollTop = box.scrollHeight;
  }, [content, followed]);

  // More lines came in above the person's view: it stays on what they were reading.
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && reading && following.current === false && fromBottom.current > 0)
      box.scrollTop = box.scrollHeight - box.clientHeight - fromBottom.current;
  }, [reading]);

  // A new run follows its lines again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: subject is the trigger (a new run)
  useLayoutEffect(() => {
    following.current = true;
    fromBottom.current = 0;
    setReading(false);
  }, [subject]);

  // The box's height, whenever it changes (the dock resized, the window, the zoom);
  // read from the observer's entry, so measuring never makes the page lay out.
  useEffect(() => {
    const box = ref.current;
    if (!box || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver((entries) => {
      const measured = entries.at(-1)?.contentRect.height;
      if (measured !== undefined && measured > 0) setHeight(Math.round(measured));
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  return { ref, onScroll, kept: reading ? Math.max(SHOWN_LINES, followed) : followed, stopFollowing };
}
