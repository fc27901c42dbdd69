// WebKit's own profile of the window during a live run: what it lays out and paints,
// and where. The window's WebKit (WebKitGTK, no symbols in Debian's packages) cannot be
// profiled by `perf` below its libraries; its Web Inspector can, over the remote
// inspector that `WEBKIT_INSPECTOR_HTTP_SERVER` opens. This script attaches to it, opens
// the speed crew, runs it in Simulate at the pace asked for, records the inspector's
// Timeline meanwhile, and prints where the rendering frames went: painting by the
// rectangle painted, layout by the box it was laid out from, style, script.
//
//   node --experimental-websocket paint-profile.mjs HOST:PORT CREWS_DIR OUT.json [PACE] [SECONDS] [CSS]
//
// Started by paint-profile.sh, which starts the app (see docs/testing.md). PACE is a
// Simulate pace (instant, readable); SECONDS, when given, records that long instead
// of until the run ends; CSS is a style sheet added before the run (as E2E_SPEED_CSS).
// A figure, not a test: the inspector's instrumentation slows the page, so compare
// runs of this script with each other, never with speed.json. With
// PAINT_PROFILE_TIMELINE=off nothing is recorded: the page's own split of each update
// (paintDelays.ts: React, the frame) is then the figure, uninstrumented.
import { writeFile } from "node:fs/promises";
import { summary, updateParts } from "./figures.mjs";
import { asExpression, CHOOSE_SIMULATE } from "./in-page.mjs";

const [address, crews, out, pace = "instant", seconds = "", css = ""] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's inspector socket, from the list of targets the app serves. */
async function findPage() {
  for (let i = 0; i < 1200; i++) {
    try {
      const list = await (await fetch(`http://${address}/`)).text();
      const path = list.match(/\/socket\/\d+\/\d+\/WebPage/)?.[0];
      if (path) return `ws://${address}${path}`;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`no page to inspect at ${address} within two minutes`);
}

/** The inspector's protocol to the page: commands wrapped for its target, their
 * answers, and the Timeline's records as they come. */
async function connect(url) {
  const socket = new WebSocket(url);
  const records = [];
  const waiting = new Map();
  let target;
  let id = 0;
  let targetFound;
  const found = new Promise((resolve) => (targetFound = resolve));
  const fromPage = (message) => {
    if (message.id && waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    } else if (message.method === "Timeline.eventRecorded") records.push(message.params.record);
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.method === "Target.targetCreated") {
      target ??= message.params.targetInfo.targetId;
      targetFound();
    } else if (message.method === "Target.dispatchMessageFromTarget") fromPage(JSON.parse(message.params.message));
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`the inspector at ${url} refused the connection`));
  });
  // The app gone (or its inspector closed): every question still waiting fails.
  let closed;
  const gone = new Promise((_, reject) => (closed = reject));
  gone.catch(() => {});
  socket.onclose = () => closed(new Error("the app's inspector closed the connection (did the app quit? its output is in paint-profile-app.log)"));
  await Promise.race([found, gone]);
  const send = (method, params = {}) => {
    const inner = ++id;
    socket.send(JSON.stringify({ id: ++id, method: "Target.sendMessageToTarget", params: { targetId: target, message: JSON.stringify({ id: inner, method, params }) } }));
    return Promise.race([new Promise((resolve) => waiting.set(inner, resolve)), gone]);
  };
  /** The value of `expression` in the page (awaited when it is a promise). */
  const evaluate = async (expression) => {
    const answer = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    if (answer.error || answer.result?.wasThrown) throw new Error(`the page could not run ${expression.slice(0, 80)}: ${JSON.stringify(answer.error ?? answer.result)}`);
    return answer.result?.result?.value;
  };
  /** Waits until `expression` is true in the page, at most `ms`. */
  const until = async (expression, what, ms = 120_000) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await evaluate(expression)) return;
    throw new Error(`timed out waiting for ${what}`);
  };
  return { send, evaluate, until, records, close: () => socket.close() };
}

/** A rectangle of the inspector's (a quad of four corners) as "x,y → x,y". */
const rect = (quad) => (quad ? `${quad[0]},${quad[1]} → ${quad[4]},${quad[5]}` : "?");

/** Every record and its children, flattened. */
function* all(records) {
  for (const record of records) {
    yield record;
    yield* all(record.children ?? []);
  }
}

/** Time, count and (for paint and layout) the rectangle, by record type. */
function summarize(records) {
  const ms = (record) => ((record.endTime ?? record.startTime) - record.startTime) * 1000;
  const byType = {};
  const paints = new Map();
  const layouts = new Map();
  for (const record of all(records)) {
    const own = ms(record) - (record.children ?? []).reduce((sum, child) => sum + ms(child), 0);
    byType[record.type] ??= { count: 0, selfMs: 0 };
    const entry = byType[record.type];
    entry.count += 1;
    entry.selfMs += Math.max(0, own);
    const into = record.type === "Paint" ? paints : record.type === "Layout" ? layouts : null;
    if (!into) continue;
    const key = rect(record.type === "Paint" ? record.data?.clip : record.data?.root);
    const place = into.get(key) ?? { count: 0, ms: 0 };
    place.count += 1;
    place.ms += ms(record);
    into.set(key, place);
  }
  const ranked = (map) =>
    [...map]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 8)
      .map(([where, { count, ms: total }]) => ({ where, count, ms: Math.round(total) }));
  const round = Object.fromEntries(Object.entries(byType).map(([type, { count, selfMs }]) => [type, { count, selfMs: Math.round(selfMs) }]));
  return { byType: round, paintedAt: ranked(paints), laidOutFrom: ranked(layouts) };
}

/** The figures in a few lines, for a person. */
function report(f) {
  const lines = [
    `${f.pace} run, ${(f.recordedMs / 1000).toFixed(1)} s recorded, ${f.events} events`,
    `event → pixel p50 / p95: ${f.event_to_pixel_ms.p50} / ${f.event_to_pixel_ms.p95} ms; an update (p50): React ${f.update_ms.render.p50} ms, the frame ${f.update_ms.frame.p50} ms, the graph ${f.update_ms.graph.p50} ms (${f.update_ms.frame.count} updates)`,
  ];
  if (!f.byType) return lines.join("\n");
  const busiest = Object.entries(f.byType)
    .filter(([, v]) => v.selfMs > 0)
    .sort((a, b) => b[1].selfMs - a[1].selfMs)
    .map(([type, v]) => `${type} ${v.selfMs}`);
  lines.push(`WebKit's own time (ms): ${busiest.join(", ")}`, "painted (ms, times, rectangle in the window's px):");
  for (const p of f.paintedAt) lines.push(`  ${String(p.ms).padStart(6)}  ${String(p.count).padStart(4)}×  ${p.where}`);
  lines.push("laid out from (ms, times, the layout's root box):");
  for (const l of f.laidOutFrom) lines.push(`  ${String(l.ms).padStart(6)}  ${String(l.count).padStart(4)}×  ${l.where}`);
  return lines.join("\n");
}

/** Opens the speed crew, runs it at `pace` while the Timeline records, reports. */
async function main() {
  const page = await connect(await findPage());
  await page.until("Boolean(window.crewgraph?.paintDelays && document.querySelector('.crew-cards li'))", "the start view");
  await page.evaluate(`window.crewgraph.openCrew(${JSON.stringify(`${crews}/speed.yaml`)}).then(() => true)`);
  await page.until("document.querySelectorAll('.react-flow__node-agent .agent-name').length >= 2", "the speed crew's cards");
  await page.evaluate(`document.querySelector('.run-dock-toggle[aria-expanded="false"]')?.click(), true`);
  await page.until(asExpression(CHOOSE_SIMULATE), "Simulate in the model list");
  await page.until("[...document.querySelectorAll('.run-script-name')].some((e) => e.textContent.includes('speed.yaml'))", "the speed script");
  await page.until(
    `(() => { const el = document.querySelector('.run-pace-choice[data-pace=${JSON.stringify(pace)}]'); el?.click(); return el?.getAttribute('aria-checked') === 'true'; })()`,
    `the pace ${pace}`,
  );
  await page.evaluate(`(() => {
    const input = document.querySelector('.run-input');
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), 'value').set.call(input, 'Go as fast as you can');
    input.dispatchEvent(new Event('input', { bubbles: true }));
    return true;
  })()`);
  if (css) await page.evaluate(`(() => { const s = document.createElement('style'); s.textContent = ${JSON.stringify(css)}; document.head.append(s); return true; })()`);
  // The Timeline's clock starts with the Page domain; the domain itself is turned off
  // again at once (enabled, it makes WebKit repaint the whole window at every change).
  const timeline = process.env.PAINT_PROFILE_TIMELINE !== "off";
  if (timeline) {
    await page.send("Page.enable");
    await page.send("Page.disable");
    await page.send("Timeline.setInstruments", { instruments: ["Timeline"] });
    await page.send("Timeline.start", { maxCallStackDepth: 0 });
  }
  await page.evaluate("window.crewgraph.paintDelays.start(), true");
  const started = Date.now();
  await page.evaluate("document.querySelector('.run-buttons .run-button:nth-child(1)').click(), true");
  const status = "(document.querySelector('.run-status')?.textContent ?? '')";
  await page.until(`${status}.startsWith('Running')`, "the run under way", 30_000);
  if (seconds) await sleep(Number(seconds) * 1000);
  else await page.until(`!${status}.startsWith('Running')`, "the run's end", 300_000);
  const recordedMs = Date.now() - started;
  await sleep(300);
  if (timeline) await page.send("Timeline.stop");
  await sleep(300);
  const updates = await page.evaluate("window.crewgraph.paintDelays.updates()");
  const delays = await page.evaluate("window.crewgraph.paintDelays.stop()");
  const figures = {
    pace,
    recordedMs,
    events: await page.evaluate("window.crewgraph.runEvents()"),
    // From each event's time to just after the frame that showed it, and where each
    // update of the page went (React, the frame...), as speed.json has them.
    event_to_pixel_ms: summary(delays),
    update_ms: updateParts(updates),
    ...(timeline ? summarize(page.records) : {}),
  };
  await writeFile(out, `${JSON.stringify({ ...figures, records: page.records })}\n`);
  console.log(report(figures));
  page.close();
}

main().catch((error) => {
  console.error(`paint-profile: ${error.message}`);
  process.exit(1);
});
