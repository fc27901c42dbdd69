// End-to-end test of the web UI in a real browser (run by run-browser.sh): Chromium,
// driven by playwright-core, against `crewgraph serve --token` — the same UI as the
// window, over HTTP and server-sent events (ui/src/backend/http.ts). The API refuses
// a request without the token; the page takes its token from the address and asks
// for it when it has none; the start view lists the examples; the interview crew runs
// in Simulate mode as in the window (runs.test.mjs): the highlight moves from agent
// to agent, the tracker says why the handoff happened, the pause asks and resumes;
// an edit saved with Ctrl+S lands in the crew's file on the server's disk; and a run
// with each reply typed in the window, exported as a download and imported back
// through the browser's file chooser (a truncated copy refused in words), named
// after the crew and what it was asked; a recording made in the window (its crew
// named by a path of that machine) opens on the crew here of the same file name.
// Settings → Traces is turned on with a collector's address and a header, kept over
// HTTP, shown again when Settings opens anew (then turned off again).
// It also measures the UI at about 1,000 events a second (target/e2e-browser/
// speed.json), Chromium's memory idle on the start view (memory.json) and a
// 1,000-agent crew's frame rates (canvas-fps.json), for BENCHMARKS.md beside the
// window's figures from speed.test.mjs and editor.test.mjs.
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { chooseSimulate, startChromium, statusIs as statusOf } from "./chromium.mjs";
import { canvasFigure, processMemory, summary, updateParts } from "./figures.mjs";
import { asExpression, CANVAS_STATE, MEASURE_CANVAS, RECORD_ACTIVE, ZOOM_TO_CARDS } from "./in-page.mjs";
import { WAIT, waitFor, waitForStable } from "./webdriver.mjs";

const URL_ = process.env.E2E_URL;
const TOKEN = process.env.E2E_TOKEN;
const CREWS = process.env.E2E_CREWS;
const OUT = process.env.E2E_OUT ?? "target/e2e-browser";

let browser;
let page;
/** What the page said went wrong (uncaught errors, console errors): none expected. */
let complaints;
/** Dialogs (prompt, confirm, leave-the-page) the page opened that no test expected. */
let dialogs;
/** Answers the page's next dialog of a type (see chromium.mjs). */
let expectDialog;

before(async () => {
  assert.ok(URL_ && TOKEN && CREWS, "E2E_URL, E2E_TOKEN and E2E_CREWS must be set (run-browser.sh)");
  ({ browser, page, complaints, dialogs, expectDialog } = await startChromium());
});

after(async () => {
  await browser?.close();
});

const shot = (name) => page.screenshot({ path: `${OUT}/${name}.png` });
const texts = (selector) => page.locator(selector).allTextContents();
const status = async () => (await texts(".run-status"))[0] ?? "";
/** Waits until the run's status (its text in the page) matches `pattern`. */
const statusIs = (pattern) => statusOf(page, pattern);

test("the API refuses a request without the token; the UI's files need none", async () => {
  const refused = await fetch(`${URL_}/crews`);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).code, "unauthorized");
  const wrong = await fetch(`${URL_}/crews`, { headers: { Authorization: "Bearer not-the-token" } });
  assert.equal(wrong.status, 401);
  const events = await fetch(`${URL_}/runs/run-x/events`);
  assert.equal(events.status, 401, "the event stream is behind the token too");
  const allowed = await fetch(`${URL_}/crews`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(allowed.status, 200);
  const ui = await fetch(`${URL_}/`);
  assert.equal(ui.status, 200);
  assert.match(await ui.text(), /<div id="root">/);
});

test("the start view lists the example crews, with the token taken from the address", async () => {
  await page.goto(`${URL_}/#token=${TOKEN}`);
  await page.locator(".crew-card").nth(3).waitFor();
  const names = await texts(".crew-card-name");
  for (const name of ["Fractions exam", "Research and write", "Support triage", "Thi vấn đáp", "Quiz night", "Code review pipeline", "Interview"]) {
    assert.ok(names.includes(name), `the start view should offer ${name}; it shows ${names.join(", ")}`);
  }
  // The token left the address bar (bookmarks, history) for the tab's session storage.
  assert.ok(!page.url().includes("token"), `the address still holds the token: ${page.url()}`);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("crewgraph-token")), TOKEN);
  assert.match(await page.locator(".start-folder").innerText(), /Examples from the server's crews folder/);
  // Thumbnails are laid out graphs, not placeholders.
  await page.waitForFunction(() => document.querySelectorAll("svg.thumbnail rect.thumb-node").length >= 10);
  assert.deepEqual(dialogs, [], "nothing asked for the token");
  await shot("01-start");
});

// The measurement's idle periods (not waits for anything), as the window's speed test
// has them: 3 s after the start view, and 20 s, once what its pictures needed is let
// go (ELK's worker) and the script engine has collected.
test("memory: Chromium idle on the start view (figures in memory.json)", async () => {
  await new Promise((r) => setTimeout(r, 3000));
  const idle = await processMemory(process.pid, { withRoot: false });
  await new Promise((r) => setTimeout(r, 17_000));
  const settled = await processMemory(process.pid, { withRoot: false });
  assert.ok(settled.processes.some((p) => p.process.startsWith("chrom")), `Chromium's processes were measured: ${JSON.stringify(settled.processes)}`);
  await writeFile(`${OUT}/memory.json`, `${JSON.stringify({ measured_at: new Date().toISOString(), idle_memory: idle, idle_memory_20s: settled }, null, 2)}\n`);
});

test("a page opened without the token asks for it once, then shows the crews", async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const other = await context.newPage();
  other.setDefaultTimeout(WAIT);
  const asked = [];
  other.on("dialog", async (dialog) => {
    asked.push(dialog.message());
    await dialog.accept(TOKEN);
  });
  await other.goto(`${URL_}/`);
  await other.locator(".crew-card").first().waitFor();
  assert.equal(asked.length, 1, `one question for the token: ${asked.join(" | ")}`);
  assert.match(asked[0], /wants its token/);
  // Reloading keeps it (session storage): no second question.
  await other.reload();
  await other.locator(".crew-card").first().waitFor();
  assert.equal(asked.length, 1);
  await other.screenshot({ path: `${OUT}/02-token-asked.png` });
  await context.close();
});

/** Records, in the page, every agent card that becomes active, in order. */
async function recordActive() {
  await page.evaluate(asExpression(RECORD_ACTIVE));
}

const RUN = ".run-buttons .run-button:nth-child(1)";
const STOP = ".run-buttons .run-button:nth-child(2)";
const RESUME = ".run-buttons .run-button:nth-child(3)";

test("the interview runs in Simulate mode: the highlight moves, the tracker explains, the pause asks and resumes", async () => {
  await page.click('.crew-card[data-crew="interview.yaml"]');
  await page.locator(".crew-header h1").waitFor();
  await page.waitForFunction(() => document.querySelectorAll(".react-flow__node-agent .agent-name").length === 2);
  await page.waitForFunction(() => /Ready to run/.test(document.querySelector(".crew-status")?.textContent ?? ""));
  await shot("03-interview-open");

  // Simulate mode picks the script that comes with the crew (scripts/interview.yaml).
  await chooseSimulate(page, "interview.yaml");
  await recordActive();
  await page.fill(".run-input", "Interview me about colours");
  await page.click(RUN);

  // The host at work: its card glows while its reply is on the way.
  await page.locator(".agent-card.run-active").waitFor();
  assert.deepEqual(await texts(".agent-card.run-active .agent-name"), ["Host"]);
  // The glow fades in (a 200 ms transition): the picture once it has (or once the
  // host is no longer at work).
  await page.waitForFunction(() => {
    const card = document.querySelector(".agent-card.run-active");
    return !card || card.getAnimations().every((a) => a.playState !== "running");
  });
  await shot("04-run-host-active");

  // The host asks: the run pauses, the Wait node is active, the panel asks for an answer.
  await statusIs(/^Paused/);
  assert.match(await status(), /waiting for you \(Host said \[ASK_YOU\]\)/);
  assert.match((await texts(".run-label"))[0], /The crew is waiting for you: Host/);
  // (Waited for as in the window, where the graph shows an update a frame after the
  // run dock: runActions.ts, TWO_FRAMES.)
  await page.locator(".wait-node.run-waiting, .wait-node.run-active").first().waitFor();
  assert.equal(await page.locator(".wait-node.run-waiting, .wait-node.run-active").count(), 1, "the Wait node shows the crew waiting");
  // (The focus moves to the answer box once the pause is drawn.)
  await page.waitForFunction(() => document.activeElement?.className === "run-input", null, { timeout: WAIT }).catch(async () => {
    assert.fail(`the answer box should have the focus; it is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))}`);
  });
  await shot("05-run-paused");

  await page.fill(".run-input", "Blue");
  await page.click(RESUME);
  await statusIs(/^Finished/);
  assert.equal(await status(), "Finished: Writer said [DONE]");
  const active = await page.evaluate(() => window.__active);
  assert.deepEqual(active, ["Host", "Writer"], `the highlight moved ${active.join(" → ")}`);

  // One transfer, and the moves that are not signals to another agent: to Wait, to End.
  const handoffs = await texts(".run-handoffs li");
  assert.equal(handoffs.length, 3, `three moves: ${handoffs}`);
  assert.match(handoffs[0], /Host → Wait for you\s*· said \[ASK_YOU\], so the crew waits for you/);
  assert.match(handoffs[1], /Host → Writer\s*· because the reply said \[SUMMARY\] \(exact\)/);
  assert.match(handoffs[2], /Writer → End\s*· said \[DONE\], so the run is over/);
  const transcript = (await texts(".run-transcript")).join("\n");
  assert.match(transcript, /You answered Host\s*Blue/);
  assert.match(transcript, /They like blue/);
  // The arrow taken carries its count.
  const counted = await page.evaluate(() => [...document.querySelectorAll(".edge-pill .run-count")].map((c) => c.closest(".edge-pill").textContent));
  assert.ok(counted.some((pill) => pill.includes("[SUMMARY]")), `the [SUMMARY] arrow is counted: ${counted}`);
  await shot("06-run-finished");

  // The run is stored: the runs list shows it, finished (the store may note the end
  // a moment after the window shows it).
  const runs = () => fetch(`${URL_}/runs`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
  let newest;
  await waitFor(async () => (newest = (await runs())[0])?.status === "terminated", {
    message: () => `the stored run to be terminated by the writer's [DONE] (it is ${JSON.stringify(newest?.status)})`,
  });
  assert.equal(newest.handoffs, 1);
});

test("Stop ends a run cancelled, and pressing it twice does no harm", async () => {
  await page.evaluate(() => window.__observer?.disconnect());
  await page.fill(".run-input", "Another interview");
  await page.click(RUN);
  await page.locator(".agent-card.run-active").waitFor();
  await page.click(STOP);
  await page.evaluate((stop) => document.querySelector(stop).click(), STOP);
  await statusIs(/^Cancelled|Stopped by you/);
  assert.equal(await page.locator(".run-error").count(), 0, "a second Stop is not an error");
  await shot("07-run-cancelled");
});

test("a stored run is replayed on the graph from the runs list", async () => {
  // Newest first: the cancelled run, then the finished interview.
  await page.waitForFunction(() => document.querySelectorAll(".runs-list .sidebar-item").length >= 2);
  await page.locator(".runs-list .sidebar-item").nth(1).click();
  await statusIs(/^Replay/);
  await page.locator(".run-replay").waitFor();
  await statusIs(/Finished: Writer said \[DONE\]/);
  await shot("08-run-replayed");
});

test("an edit saved with Ctrl+S lands in the crew's file on the server", async () => {
  const file = `${CREWS}/interview.yaml`;
  const before = await readFile(file, "utf8");
  assert.ok(!before.includes("objective:"));
  await page.locator('.react-flow__node[data-id="agent:host"]').click();
  const goal = page.locator(".ins-panel").getByLabel("Goal", { exact: true });
  await goal.fill("Learn one thing about you");
  await goal.press("Tab"); // a field's edit counts once it is left
  await page.locator(".dirty-dot").waitFor();
  await shot("09-edited");
  await page.keyboard.press("Control+s");
  await page.locator(".dirty-dot").waitFor({ state: "detached" });
  const saved = await readFile(file, "utf8");
  assert.match(saved, /objective: Learn one thing about you/);
  assert.match(saved, /name: Interview/);
  assert.match(saved, /\[SUMMARY\]/, "the rest of the crew is kept");
  await page.waitForFunction(() => /Saved to interview\.yaml/.test(document.querySelector(".banner")?.textContent ?? ""));
  await shot("10-saved");
});

test("Export YAML hands the person a download and writes nothing on the server", async () => {
  const before = await readdir(CREWS);
  const asked = expectDialog("prompt", "interview-export.yaml");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export YAML" }).click()]);
  assert.match(await asked, /Export the crew as one YAML file/);
  assert.equal(download.suggestedFilename(), "interview-export.yaml");
  const text = await readFile(await download.path(), "utf8");
  assert.match(text, /name: Interview/);
  assert.match(text, /objective: Learn one thing about you/);
  assert.deepEqual(await readdir(CREWS), before, "nothing new in the crews folder");
});

test("leaving the page with unsaved edits asks first", async () => {
  const goal = page.locator(".ins-panel").getByLabel("Goal", { exact: true });
  await goal.fill("Learn two things about you");
  await goal.press("Tab");
  await page.locator(".dirty-dot").waitFor();
  // Reloading would lose them: the browser asks, the person says stay. (A reload
  // that was stayed from never finishes: the 5 s bound is how long the test watches
  // for one that would, not a wait for anything to happen.)
  const asked = expectDialog("beforeunload", false);
  const left = await page.reload({ timeout: 5000 }).then(() => true, () => false);
  await asked;
  assert.equal(left, false, "the page stays when the person says so");
  assert.equal(await page.locator(".dirty-dot").count(), 1, "the edits are still there");
  assert.equal(await page.locator(".ins-panel").getByLabel("Goal", { exact: true }).inputValue(), "Learn two things about you");
});

test("typed replies over HTTP; the recording is a download, imported back through the file chooser", async () => {
  // (The crew has edits not saved from the test before: the run uses it as saved.)
  const typed = await page.locator(".run-select option").evaluateAll((options) => options.find((o) => o.textContent === "Simulate (type each reply)")?.value);
  await page.selectOption(".run-select", typed);
  await page.fill(".run-input", "Interview me, typed");
  await page.click(RUN);
  const host = page.locator('.run-reply[data-agent="host"] textarea');
  await host.waitFor();
  await host.fill("Thank you, passing it on.");
  await page.locator('.run-reply[data-agent="host"] .run-chip', { hasText: "[SUMMARY]" }).click();
  await page.waitForFunction(() => document.querySelector('.run-reply[data-agent="host"] textarea')?.value === "Thank you, passing it on. [SUMMARY]");
  await host.press("Enter");
  const writer = page.locator('.run-reply[data-agent="writer"] textarea');
  await writer.waitFor();
  await writer.fill("They like talking. [DONE]");
  await writer.press("Enter");
  await statusIs(/^Finished/);
  assert.equal(await status(), "Finished: Writer said [DONE]");
  await shot("11-typed-finished");

  const [run] = await (await fetch(`${URL_}/runs`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(".run-export button")]);
  // Named after the crew and what it was asked, not the run's id.
  assert.equal(download.suggestedFilename(), "Interview - Interview me, typed.json");
  const text = await readFile(await download.path(), "utf8");
  const recording = JSON.parse(text);
  assert.equal(recording.format, "crewgraph-run-recording");
  assert.equal(recording.crew, "interview.yaml", "the crew named in the crews folder");
  assert.deepEqual(
    recording.events.map((e) => e.seq),
    recording.events.map((_, i) => i),
  );
  assert.equal(recording.events.at(-1).type, "run_finished");

  const file = `${OUT}/${run.id}.json`;
  await writeFile(file, text);
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Import recording…" }).click()]);
  await chooser.setFiles(file);
  await statusIs(/^Replay · Finished: Writer said \[DONE\]/);
  assert.equal(await page.locator(".run-export button").count(), 0, "a recording replayed is a file already");
  await shot("12-recording-imported");

  const cut = `${OUT}/${run.id}-cut.json`;
  await writeFile(cut, text.slice(0, Math.floor(text.length / 2)));
  const [again] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Import recording…" }).click()]);
  await again.setFiles(cut);
  await page.locator(".banner.error").waitFor();
  assert.match(await page.locator(".banner.error").innerText(), /Could not open the recording: '.*-cut\.json' ends early .* the recording is truncated/);
  await shot("13-recording-truncated");
  // Chromium notes each refused request in the console: this refusal was the point
  // (waited for, so that it is not left to the last test's tally).
  const refused = (c) => c.includes("400") && c.includes("/recordings/check");
  await waitFor(() => complaints.some(refused), { message: () => `Chromium's console note of the refused check (complaints: ${JSON.stringify(complaints)})` });
  complaints.splice(complaints.findIndex(refused), 1);
  await page.locator(".banner button").click();
  await page.locator('.run-replay button[title="Stop replaying"]').click();
});

test("a recording exported from the window opens here even when its crew is not open: on the crew of the same file name", async () => {
  const [run] = await (await fetch(`${URL_}/runs`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
  const recording = await (await fetch(`${URL_}/runs/${run.id}/recording`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
  // As the window writes it: its crew named by a path of the machine it ran on.
  recording.crew = "/home/ana/crews/interview.yaml";
  const file = `${OUT}/from-the-window.json`;
  await writeFile(file, JSON.stringify(recording));
  // No crew open: the start view (the crew's unsaved edits of the tests before let go first).
  await page.evaluate(() => window.crewgraph.openCrew("interview.yaml"));
  await page.click(".brand");
  await page.locator(".crew-card").first().waitFor();
  assert.equal(await page.locator(".crew-header").count(), 0);
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Import recording…" }).click()]);
  await chooser.setFiles(file);
  await page.waitForFunction(() => /Interview/.test(document.querySelector(".crew-header h1")?.textContent ?? ""));
  await statusIs(/^Replay · Finished: Writer said \[DONE\]/);
  assert.match(await page.locator(".banner").innerText(), /This recording was made with interview\.yaml elsewhere: it is replayed on interview\.yaml from here\./);
  await shot("14-recording-from-the-window");
  // Its own crew was asked for first, and refused (out of the server's reach): that
  // refusal was the point, noted by Chromium in the console.
  const refused = (c) => c.includes("400") && c.includes("%2Fhome%2Fana%2Fcrews%2Finterview.yaml");
  await waitFor(() => complaints.some(refused), { message: () => `Chromium's console note of the refused crew (complaints: ${JSON.stringify(complaints)})` });
  complaints.splice(complaints.findIndex(refused), 1);
  await page.locator(".banner button").click();
  await page.locator('.run-replay button[title="Stop replaying"]').click();
});

test("speed: a run at about 1,000 events a second, event to pixel (figures in speed.json)", async () => {
  await page.evaluate(() => window.crewgraph.openCrew("speed.yaml"));
  await page.waitForFunction(() => document.querySelectorAll(".react-flow__node-agent .agent-name").length === 2);
  if ((await page.locator('.run-dock-toggle[aria-expanded="false"]').count()) > 0) await page.click('.run-dock-toggle[aria-expanded="false"]');
  const simulate = await page.locator(".run-select option").evaluateAll((options) => options.find((o) => o.textContent.startsWith("Simulate (replies"))?.value);
  await page.selectOption(".run-select", simulate);
  await page.waitForFunction(() => [...document.querySelectorAll(".run-script-name")].some((n) => n.textContent === "speed.yaml"));
  // (At once: the figures are of the page keeping up with a fast run.)
  await page.click('.run-pace-choice[data-pace="instant"]');
  await page.fill(".run-input", "Go as fast as you can");
  // Input latency, measured in the page as in the window's speed test: each key
  // event to just after the frame that shows it.
  await page.evaluate(() => {
    window.__inputLatency = [];
    document.addEventListener(
      "keydown",
      (event) => {
        const at = event.timeStamp;
        requestAnimationFrame(() => setTimeout(() => window.__inputLatency.push(performance.now() - at), 0));
      },
      true,
    );
  });
  await page.evaluate(() => window.crewgraph.paintDelays.start());
  // (Profiles of the run for BENCHMARKS.md, when asked: E2E_TRACE names a Chromium
  // timeline trace to write, E2E_PROFILE a JavaScript CPU profile; an unminified
  // build names the functions: cd ui && npx vite build --minify false.)
  if (process.env.E2E_TRACE) {
    const categories = ["devtools.timeline", "disabled-by-default-devtools.timeline"];
    await page.context().browser().startTracing(page, { path: process.env.E2E_TRACE, categories });
  }
  const cdp = process.env.E2E_PROFILE ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
  }
  const started = Date.now();
  await page.click(RUN);
  await statusIs(/^Running/);
  // Typing into the crew's name while the run streams (a key every 50 ms or so: the
  // pace of the typing measured, not a wait).
  const name = page.locator('.ins-panel[aria-label="Crew"] input').first();
  const named = await name.inputValue();
  for (let typed = 0; /^Running/.test(await status()) && typed < 400; typed++) {
    await name.press("x");
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.waitForFunction(() => !/^Running/.test(document.querySelector(".run-status")?.textContent ?? ""), null, { timeout: 5 * WAIT });
  const seconds = (Date.now() - started) / 1000;
  // (The crew's name as it was: the crew unedited again, for the tests after this.)
  await name.fill(named);
  if (process.env.E2E_TRACE) await page.context().browser().stopTracing();
  if (cdp) await writeFile(process.env.E2E_PROFILE, JSON.stringify((await cdp.send("Profiler.stop")).profile));
  // The run's last batches are folded (the status shows its end); each one's delay is
  // noted just after its frame. Stop taking new batches, then wait for those frames.
  const events = await page.evaluate(() => window.crewgraph.runEvents());
  await page.evaluate(() => (window.__delays = window.crewgraph.paintDelays.stop()));
  await page.waitForFunction((count) => window.__delays.length >= count, events);
  const delays = await page.evaluate(() => window.__delays);
  const updates = await page.evaluate(() => window.crewgraph.paintDelays.updates());
  assert.ok(events > 5000, `the run made thousands of events (${events})`);
  assert.equal(delays.length, events, "every event reached the screen once");
  const latency = await page.evaluate(() => window.__inputLatency);
  assert.ok(latency.length > 0, `keys were typed during the run (${latency.length})`);
  const figures = {
    measured_at: new Date().toISOString(),
    run: { events, seconds, events_per_second: Math.round(events / seconds) },
    event_to_pixel_ms: summary(delays),
    input_latency_ms: summary(latency),
    // Where an update's time went (paintDelays.ts), as in the window's speed.json.
    update_ms: updateParts(updates),
  };
  await writeFile(`${OUT}/speed.json`, `${JSON.stringify(figures, null, 2)}\n`);
  await shot("14-speed-run-finished");
});

/** Waits until the canvas is at rest (in-page.mjs, CANVAS_STATE). */
const canvasAtRest = (why) => waitForStable(() => page.evaluate(asExpression(CANVAS_STATE)), { message: `the canvas to come to rest ${why}` });

test("a 1,000-agent crew pans and zooms (figures in canvas-fps.json, as the window's editor test)", async () => {
  await page.evaluate(() => window.crewgraph.openCrew("big/generated-1000.yaml"));
  await page.locator(".far-view canvas").waitFor({ timeout: 2 * WAIT });
  await canvasAtRest("with the whole 1,000-agent crew in view");
  const measure = (zoomed) => page.evaluate(`new Promise((done) => { const zoomed = ${zoomed};${MEASURE_CANVAS}\n})`);
  const wholePan = await measure(false);
  const wholeZoom = await measure(true);
  // Zoomed in to where cards are readable, from the whole crew fitted again.
  await page.keyboard.press("Escape");
  await page.click('.toolbar button[title^="Fit the whole crew"]');
  await canvasAtRest("after fitting the crew in view");
  await page.evaluate(asExpression(ZOOM_TO_CARDS));
  await page.waitForFunction(() => document.querySelectorAll(".react-flow__node-agent .agent-name").length >= 4, null, { timeout: 2 * WAIT });
  await canvasAtRest("zoomed in on the 1,000-agent crew");
  const closePan = await measure(false);
  const closeZoom = await measure(true);
  await shot("15-1000-agents-near");
  const figures = { wholeCrewPan: canvasFigure(wholePan), wholeCrewZoom: canvasFigure(wholeZoom), cardsReadablePan: canvasFigure(closePan), cardsReadableZoom: canvasFigure(closeZoom) };
  await writeFile(`${OUT}/canvas-fps.json`, `${JSON.stringify(figures, null, 2)}\n`);
  for (const [what, m] of Object.entries({ wholePan, wholeZoom, closePan, closeZoom })) assert.ok(m.frames > 1, `frames were measured (${what}: ${m.frames})`);
});

test("an agent added over HTTP while its crew is open appears on the graph at once, marked, and goes when removed", async () => {
  await page.evaluate(() => window.crewgraph.openCrew("code-review.yaml"));
  await page.locator('.react-flow__node[data-id="agent:developer"]').waitFor();
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const added = await fetch(`${URL_}/crews/code-review.yaml/agents`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ yaml: "id: gardener\nname: Gardener\nrole: Looks after the beds\nsystem_prompt: You weed.\n" }),
  });
  assert.equal(added.status, 201, await added.text());
  const tag = page.locator('.react-flow__node[data-id="agent:gardener"] .runtime-tag');
  await tag.waitFor({ timeout: 15_000 });
  assert.equal(await tag.innerText(), "added while running");
  assert.equal(await page.locator('.react-flow__node[data-id="agent:gardener"] .agent-name').innerText(), "Gardener");
  await shot("15-runtime-agent");
  const removed = await fetch(`${URL_}/crews/code-review.yaml/agents/gardener`, { method: "DELETE", headers: auth });
  assert.equal(removed.status, 204);
  await page.locator('.react-flow__node[data-id="agent:gardener"]').waitFor({ state: "detached", timeout: 15_000 });
});

test("Settings → Traces: a refused address said beside it; turned on with an address and a header, saved, kept when opened again", async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const traces = page.getByRole("form", { name: "Traces" });
  const open = async () => {
    await page.locator(".sidebar-bottom .sidebar-item").first().click();
    await traces.locator(".settings-traces-status").waitFor();
  };
  const done = async () => {
    await page.locator(".settings-dialog").getByRole("button", { name: "Done" }).click();
    await page.locator(".settings-dialog").waitFor({ state: "detached" });
  };
  const send = traces.getByRole("switch", { name: "Send traces of every run" });
  const address = traces.getByLabel("The collector's address");
  await open();
  assert.equal(await send.isChecked(), false, "off by default");
  assert.equal(await traces.locator(".settings-traces-status").innerText(), "Traces are off: runs are not sent anywhere.");
  // An address without http:// is refused by the server, in words, beside the field.
  await send.check();
  await address.fill("127.0.0.1:6006");
  await traces.getByRole("button", { name: "Save" }).click();
  const refusal = traces.locator(".field-error[id$='-endpoint-error']");
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /^“127\.0\.0\.1:6006” is not a web address: it starts with http:\/\/ or https:\/\//);
  // Chromium notes the refused request in the console: the refusal was the point.
  const refused = (c) => c.includes("400") && c.includes("/traces");
  await waitFor(() => complaints.some(refused), { message: () => `Chromium's console note of the refused address (complaints: ${JSON.stringify(complaints)})` });
  complaints.splice(complaints.findIndex(refused), 1);
  await address.fill("http://127.0.0.1:6006");
  await traces.getByRole("button", { name: "Add header" }).click();
  const header = traces.getByRole("group", { name: /^Header / });
  await header.getByLabel("Name", { exact: true }).fill("x-team");
  await header.getByLabel("Text", { exact: true }).fill("crew");
  await traces.getByRole("button", { name: "Save" }).click();
  await traces.getByRole("status").filter({ hasText: "Saved: runs started from now on follow it." }).waitFor();
  await traces.scrollIntoViewIfNeeded();
  await shot("16-settings-traces");
  const kept = await fetch(`${URL_}/traces`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.json());
  assert.deepEqual(kept.settings, { enabled: true, endpoint: "http://127.0.0.1:6006", headers: { "x-team": "crew" }, capture_content: false });
  await done();

  // Opened again: what was saved, and where runs' traces go.
  await open();
  assert.equal(await send.isChecked(), true);
  assert.equal(await address.inputValue(), "http://127.0.0.1:6006");
  assert.equal(await traces.getByRole("group", { name: "Header x-team" }).getByLabel("Text", { exact: true }).inputValue(), "crew");
  assert.match(await traces.locator(".settings-traces-status").innerText(), /Runs started now send their trace to http:\/\/127\.0\.0\.1:6006\/v1\/traces\./);
  // Turned off again: the runs of later tests are not traced.
  await send.uncheck();
  await traces.getByRole("button", { name: "Save" }).click();
  await traces.getByRole("status").filter({ hasText: "Saved: traces are off." }).waitFor();
  await done();
  await page.setViewportSize({ width: 1400, height: 900 });
});

test("the page said nothing went wrong", () => {
  assert.deepEqual(complaints, []);
  assert.deepEqual(dialogs, []);
});
