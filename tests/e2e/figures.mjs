// The speed figures' summaries, shared by the window's speed test (speed.test.mjs)
// and Chromium's (browser.test.mjs), so both report the same shapes in speed.json
// (and the canvas's frame rates and the idle memory, beside the window's).
import { readdir, readFile, readlink } from "node:fs/promises";

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
  Object.fromEntries(["events", "fold", "render", "wait", "frame", "graph"].map((part) => [part, summary(updates.map((u) => u[part]))]));

/** A canvas measurement (in-page.mjs, MEASURE_CANVAS) as its figure: the median
 * frames a second, the 95th-percentile frame in ms, how many frames. */
export const canvasFigure = (m) => ({ medianFps: Math.round(1000 / m.median), p95FrameMs: Math.round(m.p95), frames: m.frames });

/** The memory of process `root` and every process it started (for the window: the
 * app and WebKit's web and network processes; for Chromium: its browser, renderer
 * and helper processes), with their resident and proportional set sizes in MiB.
 * With `withRoot` false the root itself is left out (the test's own node process). */
export async function processMemory(root, { withRoot = true } = {}) {
  const procs = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const exe = await readlink(`/proc/${name}/exe`).catch(() => "");
      procs.push({ pid: Number(name), ppid, exe });
    } catch {
      // gone meanwhile
    }
  }
  const family = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!family.has(p.pid) && family.has(p.ppid)) family.add(p.pid), (grew = true);
  }
  if (!withRoot) family.delete(root);
  const rows = [];
  for (const pid of family) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
    const kib = (key) => Number(rollup.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0);
    const exe = (procs.find((p) => p.pid === pid)?.exe ?? "").split("/").at(-1);
    rows.push({ process: exe, rss_mib: Math.round(kib("Rss") / 102.4) / 10, pss_mib: Math.round(kib("Pss") / 102.4) / 10 });
  }
  const total = (key) => Math.round(rows.reduce((sum, r) => sum + r[key], 0) * 10) / 10;
  return { processes: rows, rss_mib: total("rss_mib"), pss_mib: total("pss_mib") };
}

/** The process whose executable is `exe` (the app), or undefined. */
export async function processOf(exe) {
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    if ((await readlink(`/proc/${name}/exe`).catch(() => "")) === exe) return Number(name);
  }
  return undefined;
}
