// The window's speed figures (issue 6), measured in the real window under Xvfb and
// written to target/e2e/speed.json for BENCHMARKS.md — figures, not pass/fail
// thresholds (targets live in benchmarks, never in timed tests; this file only
// checks that every event arrived and that it measured something; its only fixed
// pauses are measurement windows: the 3 s of idling, the typing's pace):
//
// - cold start: from asking tauri-driver for a session (the app starts) until the
//   start view lists the crews and answers a script;
// - idle memory: the resident and proportional set sizes of the app and its WebKit
//   processes, after the start view has been idle for 3 s, and for 20 s;
// - a Simulate run of fixtures/speed.yaml at about 1,000 events a second: the delay
//   from each event's timestamp to just after the frame that shows it (the app's
//   `paintDelays` hook), and the input latency of typing into the crew's name field
//   meanwhile (from each key event to just after the frame that shows it), and
//   where each update of the window spent its time (folding the events, React,
//   waiting for the frame, the frame's style, layout and paint).
//
// E2E_SPEED_CSS adds a style sheet before the run, for experiments on what costs
// what (`.run-transcript{display:none}` leaves the transcript out of every frame).
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { after, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { chooseSimulate, forgetLayout, openCrew } from "./app.mjs";
import { processMemory, processOf, summary, updateParts } from "./figures.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;

after(async () => {
  // (The run dock was unfolded here: the next test file gets a window as new.)
  if (session) await forgetLayout(session).catch(() => {});
  await session?.end();
});


/** The memory of the app and its WebKit processes (figures.mjs). */
async function appMemory() {
  const app = await processOf(APP);
  assert.ok(app, `the app process (${APP}) is running`);
  return processMemory(app);
}

test("speed: cold start, idle memory, and a run at about 1,000 events a second", async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  const asked = Date.now();
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "speed-";
  await session.visible(".crew-cards li", { timeout: 120_000 });
  const coldStartMs = Date.now() - asked;

  // The measurement's idle periods (not waits for anything): 3 s after the start
  // view, and 20 s after it, once what the start's pictures needed is let go
  // (ELK's worker after 15 s idle) and the script engine has collected.
  await new Promise((r) => setTimeout(r, 3000));
  const idle = await appMemory();
  await new Promise((r) => setTimeout(r, 17_000));
  const settled = await appMemory();

  await openCrew(session, `${CREWS}/speed.yaml`, { ready: "window.crewgraph?.paintDelays" });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  // (At once: the figures are of the window keeping up with a fast run.)
  await chooseSimulate(session, "speed.yaml", { pace: "instant" });
  await session.type(".run-input", "Go as fast as you can");

  // Input latency, measured in the page: each key event to just after its frame.
  await session.execute(`
    window.__inputLatency = [];
    document.addEventListener('keydown', (event) => {
      const at = event.timeStamp;
      requestAnimationFrame(() => setTimeout(() => window.__inputLatency.push(performance.now() - at), 0));
    }, true);`);
  if (process.env.E2E_SPEED_CSS) await session.execute("const s = document.createElement('style'); s.textContent = arguments[0]; document.head.append(s);", [process.env.E2E_SPEED_CSS]);
  await session.execute("window.crewgraph.paintDelays.start()");
  const started = Date.now();
  await session.click(".run-buttons .run-button:nth-child(1)");
  const status = async () => (await session.texts(".run-status"))[0] ?? "";
  await session.waitFor(async () => (await status()).startsWith("Running"), { message: async () => `the run under way (it says: ${JSON.stringify(await status())})` });

  // Type into the crew's name while the run streams (a key every 50 ms or so: the
  // pace of the typing measured, not a wait).
  const name = '.ins-panel[aria-label="Crew"] input';
  await session.waitFor(async () => (await session.find(name)).length > 0, { message: "the crew's name field" });
  let typed = 0;
  while ((await status()).startsWith("Running") && typed < 400) {
    await session.type(name, "x", { clear: false });
    typed += 1;
    await new Promise((r) => setTimeout(r, 50));
  }
  await session.waitFor(async () => !(await status()).startsWith("Running"), { timeout: 300_000, message: "the run's end" });
  const runMs = Date.now() - started;
  await session.screenshot(`${OUT}/40-speed-run-finished.png`);
  // The run's last batches are folded (the status shows its end); each one's delay is
  // noted just after its frame. Stop taking new batches, then wait for those frames.
  const events = await session.execute("return window.crewgraph.runEvents()");
  await session.execute("window.__delays = window.crewgraph.paintDelays.stop()");
  await session.waitFor(() => session.execute("return window.__delays.length >= arguments[0]", [events]), {
    message: async () => `every event's paint noted (${await session.execute("return window.__delays.length")} of ${events})`,
  });
  const delays = await session.execute("return window.__delays");
  const latency = await session.execute("return window.__inputLatency");
  const updates = await session.execute("return window.crewgraph.paintDelays.updates()");
  const pageShare = await session.execute("return window.crewgraph.paintDelays.batches()");

  assert.ok(events > 5000, `the run made thousands of events (${events})`);
  assert.equal(delays.length, events, "every event of the run reached the screen once");
  assert.ok(latency.length > 0, `keys were typed during the run (${latency.length})`);
  const figures = {
    measured_at: new Date().toISOString(),
    cold_start_ms: coldStartMs,
    idle_memory: idle,
    idle_memory_20s: settled,
    run: { events: delays.length, seconds: Math.round(runMs / 100) / 10, events_per_second: Math.round(delays.length / (runMs / 1000)) },
    event_to_pixel_ms: summary(delays),
    batch_arrival_to_pixel_ms: summary(pageShare),
    input_latency_ms: summary(latency),
    // Where an update's time went (paintDelays.ts, UpdateParts): folding, React's
    // render and commit, waiting for the frame, the frame itself.
    update_ms: updateParts(updates),
  };
  await writeFile(`${OUT}/speed.json`, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures));
});
