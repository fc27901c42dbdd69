// End-to-end test of runs in the real window (run by run-window.sh): a crew run in
// Simulate mode with the script that comes with it — the highlight moves from agent
// to agent in order, the tracker says why each handoff happened, a pause asks the
// person and resumes with the answer; Stop ends a run `cancelled`; a stored run is
// replayed from the runs list.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { RECORD_ACTIVE } from "./in-page.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;

before(async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "runs-";
});

after(async () => {
  await session?.end();
});

async function openCrew(path) {
  await session.until("the automation hook", () => session.execute("return Boolean(window.crewgraph)"));
  await session.execute("window.crewgraph.openCrew(arguments[0])", [path]);
  await session.waitFor(".crew-header h1");
}

/** Unfolds the run panel, chooses Simulate in the model list; the crew's own
 * script is picked for it. */
async function simulate(script) {
  await session.click('.run-dock-toggle[aria-expanded="false"]');
  await session.execute(`
    const select = document.querySelector('.run-select');
    const option = [...select.options].find((o) => o.textContent.startsWith('Simulate'));
    const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set;
    set.call(select, option.value);
    select.dispatchEvent(new Event('change', { bubbles: true }));`);
  await session.until(`the script ${script}`, async () => (await session.texts(".run-script-name")).includes(script));
}

/** Records, in the page, every agent card that becomes active, in order. */
async function recordActive() {
  await session.execute(RECORD_ACTIVE);
}

const status = async () => (await session.texts(".run-status"))[0] ?? "";
const RUN = ".run-buttons .run-button:nth-child(1)";
const STOP = ".run-buttons .run-button:nth-child(2)";
const RESUME = ".run-buttons .run-button:nth-child(3)";

test("an interview runs in Simulate mode: the highlight moves, the tracker explains, the pause asks and resumes", async () => {
  await openCrew(`${CREWS}/interview.yaml`);
  await session.waitFor(".react-flow__node-agent .agent-name", { count: 2 });
  await simulate("interview.yaml");
  await recordActive();
  await session.type(".run-input", "Interview me about colours");
  await session.click(RUN);

  // The host asks: the run pauses, the Wait node is active, the panel asks for an answer.
  await session.until("the pause", async () => (await status()).startsWith("Paused"), 20000);
  assert.match(await status(), /waiting for you \(Host said \[ASK_YOU\]\)/);
  assert.match((await session.texts(".run-label"))[0], /The crew is waiting for you: Host/);
  assert.equal((await session.find(".wait-node.run-waiting, .wait-node.run-active")).length, 1, "the Wait node shows the crew waiting");
  await session.screenshot(`${OUT}/20-run-paused.png`);

  await session.type(".run-input", "Blue");
  await session.click(RESUME);
  await session.until("the end", async () => (await status()).startsWith("Finished"), 20000);
  assert.equal(await status(), "Finished: Writer said [DONE]");
  const active = await session.execute("return window.__active");
  assert.deepEqual(active, ["Host", "Writer"], `the highlight moved ${active.join(" → ")}`);

  const handoffs = await session.texts(".run-handoffs li");
  assert.equal(handoffs.length, 1, `one handoff: ${handoffs}`);
  assert.match(handoffs[0], /Host → Writer\s*· because the reply said \[SUMMARY\] \(exact\)/);
  const transcript = (await session.texts(".run-transcript")).join("\n");
  assert.match(transcript, /You answered Host\s+Blue/);
  assert.match(transcript, /They like blue/);
  // The arrow taken carries its count.
  const counted = await session.execute(`return [...document.querySelectorAll('.edge-pill .run-count')].map((c) => c.closest('.edge-pill').textContent)`);
  assert.ok(counted.some((pill) => pill.includes("[SUMMARY]")), `the [SUMMARY] arrow is counted: ${counted}`);
  await session.screenshot(`${OUT}/21-run-finished.png`);
});

test("Stop ends a run cancelled, and pressing it twice does no harm", async () => {
  await session.execute(`window.__observer?.disconnect()`);
  await session.type(".run-input", "Another interview");
  await session.click(RUN);
  await session.until("the host at work", async () => (await session.find(".agent-card.run-active")).length === 1, 15000);
  await session.click(STOP);
  await session.execute(`document.querySelector(arguments[0]).click()`, [STOP]);
  await session.until("the cancellation", async () => /^Cancelled|Stopped by you/.test(await status()), 15000);
  assert.equal((await session.find(".run-error")).length, 0, "a second Stop is not an error");
  await session.screenshot(`${OUT}/22-run-cancelled.png`);
});

test("a stored run is replayed on the graph from the runs list", async () => {
  await session.until("the runs list", async () => (await session.find(".runs-list .sidebar-item")).length >= 2);
  // Newest first: the cancelled run, then the finished interview.
  const [, finished] = await session.find(".runs-list .sidebar-item");
  await session.call("POST", `/element/${finished}/click`, {});
  await session.until("the replay", async () => (await status()).startsWith("Replay"), 15000);
  await session.waitFor(".run-replay");
  await session.until("the replay to reach the end", async () => /Finished: Writer said \[DONE\]/.test(await status()), 30000);
  await session.screenshot(`${OUT}/23-run-replayed.png`);
});

test("Settings: a model is added, made the default and removed; the list shows no key", async () => {
  await session.click(".sidebar-bottom .sidebar-item");
  await session.waitFor(".settings-model strong");
  assert.deepEqual(await session.texts(".settings-model strong"), ["local"]);
  await session.type('.settings-add input[name="model-name"]', "fast");
  await session.type('.settings-add input[name="provider-model"]', "gpt-4o-mini");
  await session.click('.settings-add button[type="submit"]');
  await session.until("the new model", async () => (await session.texts(".settings-model strong")).includes("fast"));
  // The first model of one's own may become the default by itself; else choose it.
  const byText = (model, text) =>
    session.execute(
      `const b = [...document.querySelectorAll('.settings-model[data-model="' + arguments[0] + '"] button')].find((b) => b.textContent === arguments[1]);
       if (b) b.click(); return Boolean(b);`,
      [model, text],
    );
  await byText("fast", "Make default");
  await session.until("fast as the default", async () => (await session.texts(".settings-model.default strong")).includes("fast"));
  await byText("local", "Make default");
  await session.until("local as the default again", async () => (await session.texts(".settings-model.default strong")).includes("local"));
  assert.match((await session.texts('.settings-model[data-model="fast"]'))[0], /no key set/);
  await session.screenshot(`${OUT}/24-settings.png`);
  assert.ok(await byText("fast", "Remove"));
  await session.until("fast removed", async () => !(await session.texts(".settings-model strong")).includes("fast"));
  await session.keys("\uE00C");
});
