// A log that follows its newest lines (the transcript, the tracker): it stays at
// the bottom as lines arrive, unless the person scrolled up to read, and follows
// again once they are back at the bottom. While it follows, only the newest
// FOLLOW_LINES lines need to be in the page — the rest are above, out of sight —
// so a fast run lays out a short list each frame, not a long one (BENCHMARKS.md,
// "The window's footprint"); once the person scrolls up, the log shows more, and
// keeps the lines they were looking at where they were.
import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from "react";

/** Lines kept in the page while the log follows: more than fill the tallest dock. */
export const FOLLOW_LINES = 24;

/** Lines kept once the person scrolls up to read: a long run keeps its newest ones,
 * the rest a click away, so each batch of events redraws a bounded list. */
export const SHOWN_LINES = 100;

/** Within this many pixels of the bottom counts as "at the bottom". */
const stickiness = 24;

export type Following<T extends HTMLElement> = {
  ref: RefObject<T | null>;
  onScroll: () => void;
  /** The newest lines to keep in the page: FOLLOW_LINES while the log follows,
   * SHOWN_LINES once the person scrolled up to read (or was sent further back). */
  kept: number;
  /** Stops following, as when a line further back is brought into view. */
  stopFollowing: () => void;
};

/** Follows the bottom of the scrolled box `ref` whenever `content` changes; a new
 * `subject` (another run) follows again. */
export function useFollowing<T extends HTMLElement>(content: unknown, subject: unknown): Following<T> {
  const ref = useRef<T>(null);
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

  // New lines: stay at the bottom, unless the person scrolled up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: content is the trigger (new lines to scroll to)
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && following.current) box.scrollTop = box.scrollHeight;
  }, [content]);

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

  return { ref, onScroll, kept: reading ? SHOWN_LINES : FOLLOW_LINES, stopFollowing };
}
