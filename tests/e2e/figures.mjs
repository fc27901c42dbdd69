// The speed figures' summaries, shared by the window's speed test (speed.test.mjs)
// and Chromium's (browser.test.mjs), so both report the same shapes in speed.json.

/** The value below which `p` per cent of `sorted` (ascending) lie. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** How many values, their median, 95th percentile and largest, to a tenth. */
export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 10) / 10;
  return { count: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1)) };
}

/** Where each update of the page went (paintDelays.ts, UpdateParts), part by part. */
export const updateParts = (updates) =>
  Object.fromEntries(["events", "fold", "render", "wait", "frame"].map((part) => [part, summary(updates.map((u) => u[part]))]));
