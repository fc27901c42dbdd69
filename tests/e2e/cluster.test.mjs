// End-to-end test of Crewgraph as a cluster (run by run-cluster.sh): an API node
// (`crewgraph serve --queue … --store …`) and three workers, each on a host of its
// own (network namespaces), PostgreSQL and Redis on a fifth. Runs started over HTTP
// on the API node are executed by the workers — every worker takes some, each run
// once, its events whole; then a person, in Chromium against the API node, runs
// the interview crew in Simulate mode and watches it live exactly as with a single
// server: the highlight moves, the pause asks, the answer resumes it (through the
// queue too), and the run ends; and Stop cancels a run a worker executes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chooseSimulate, startChromium, statusIs as statusOf } from "./chromium.mjs";
import { asExpression, RECORD_ACTIVE } from "./in-page.mjs";
import { WAIT, waitFor } from "./webdriver.mjs";

const URL_ = process.env.E2E_URL;
const TOKEN = process.env.E2E_TOKEN;
const WORKERS = (process.env.E2E_WORKERS ?? "").split(" ").filter(Boolean);
const OUT = process.env.E2E_OUT ?? "target/e2e-cluster";

let browser;
let page;
let complaints;

before(async () => {
  assert.ok(URL_ && TOKEN && WORKERS.length === 3, "E2E_URL, E2E_TOKEN and three E2E_WORKERS must be set (run-cluster.sh)");
  ({ browser, page, complaints } = await startChromium());
});

after(async () => {
  await browser?.close();
});

const api = (path, init = {}) =>
  fetch(`${URL_}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...(init.headers ?? {}) } });
const health = async () => Promise.all(WORKERS.map((url) => fetch(url).then((r) => r.json())));
const shot = (name) => page.screenshot({ path: `${OUT}/${name}.png` });
const texts = (selector) => page.locator(selector).allTextContents();
const status = async () => (await texts(".run-status"))[0] ?? "";
const statusIs = (pattern) => statusOf(page, pattern);

const RUN = ".run-buttons .run-button:nth-child(1)";
const STOP = ".run-buttons .run-button:nth-child(2)";
const RESUME = ".run-buttons .run-button:nth-child(3)";

test("runs started on the API node are executed by the three workers, each run once", async () => {
  for (const worker of await health()) {
    assert.deepEqual([worker.status, worker.queue, worker.store], ["ok", "ok", "ok"], JSON.stringify(worker));
  }
  const before = (await health()).reduce((sum, w) => sum + w.executed, 0);
  const ids = [];
  for (let n = 0; n < 60; n++) {
    // The exam with the script that comes with it: two questions, a reporter using its calculator.
    const request = { crew: "exam.yaml", input: `Exam ${n}`, script_file: "scripts/exam.yaml" };
    const answer = await api("/runs", { method: "POST", body: JSON.stringify(request) });
    const body = await answer.json();
    assert.equal(answer.status, 202, JSON.stringify(body));
    ids.push(body.run_id);
  }
  let runs;
  await waitFor(
    async () => {
      runs = (await (await api("/runs")).json()).filter((r) => ids.includes(r.id));
      return runs.length === ids.length && runs.every((r) => r.status !== "running");
    },
    { message: () => `every run to end (${runs?.filter((r) => r.status === "running").length} still running)` },
  );
  const statuses = new Set(runs.map((r) => r.status));
  assert.deepEqual([...statuses], ["terminated"], "every run ended as the exam's script ends it");
  for (const id of ids) {
    const events = await (await api(`/runs/${id}/events`, { headers: { Accept: "application/json" } })).json();
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
      `run ${id}: every event once, in order`,
    );
    assert.equal(events.filter((e) => e.type === "run_started").length, 1);
  }
  const workers = await health();
  const executed = workers.map((w) => w.executed);
  assert.equal(executed.reduce((a, b) => a + b, 0) - before, ids.length, `one leg per run: ${executed}`);
  for (const worker of workers) assert.ok(worker.executed > 0, `${worker.worker} executed runs too: ${executed}`);
});

test("the interview, watched live in the browser through the API node while workers execute it", async () => {
  await page.goto(`${URL_}/#token=${TOKEN}`);
  await page.click('.crew-card[data-crew="interview.yaml"]');
  await page.locator(".crew-header h1").waitFor();
  await page.waitForFunction(() => /Ready to run/.test(document.querySelector(".crew-status")?.textContent ?? ""));
  await chooseSimulate(page, "interview.yaml");
  await page.evaluate(asExpression(RECORD_ACTIVE));
  const before = (await health()).reduce((sum, w) => sum + w.executed, 0);
  await page.fill(".run-input", "Interview me about colours");
  await page.click(RUN);

  await statusIs(/^Paused/);
  assert.match(await status(), /waiting for you \(Host said \[ASK_YOU\]\)/);
  await shot("01-paused-on-a-worker");
  await page.fill(".run-input", "Blue");
  await page.click(RESUME);
  await statusIs(/^Finished/);
  assert.equal(await status(), "Finished: Writer said [DONE]");
  const active = await page.evaluate(() => window.__active);
  assert.deepEqual(active, ["Host", "Writer"], `the highlight moved ${active.join(" → ")}`);
  const handoffs = await texts(".run-handoffs li");
  assert.equal(handoffs.length, 3, `three moves: ${handoffs}`);
  assert.match(handoffs[1], /Host → Writer\s*· because the reply said \[SUMMARY\] \(exact\)/);
  const transcript = (await texts(".run-transcript")).join("\n");
  assert.match(transcript, /You answered Host\s*Blue/);
  await shot("02-finished-on-a-worker");
  // Both legs — up to the pause, and after the answer — were the workers'.
  await waitFor(async () => (await health()).reduce((sum, w) => sum + w.executed, 0) - before === 2, {
    message: () => "the workers to have executed both legs of the interview",
  });
});

test("Stop cancels a run a worker is executing", async () => {
  await page.fill(".run-input", "Another interview");
  await page.click(RUN);
  await page.locator(".agent-card.run-active").waitFor();
  await page.click(STOP);
  await statusIs(/^Cancelled|Stopped by you/);
  assert.equal(await page.locator(".run-error").count(), 0, "no error beside the run");
  await shot("03-stopped");
  const newest = async () => (await (await api("/runs")).json())[0];
  let run;
  await waitFor(async () => (run = await newest())?.status === "cancelled", {
    message: () => `the stopped run to be stored cancelled (it is ${run?.status})`,
    timeout: WAIT,
  });
});

test("the page said nothing went wrong", () => {
  assert.deepEqual(complaints, []);
});
