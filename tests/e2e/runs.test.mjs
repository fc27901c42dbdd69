// End-to-end test of runs in the real window (run by run-window.sh): a crew run in
// Simulate mode with the script that comes with it — the highlight moves from agent
// to agent in order, the tracker says why each handoff happened, a pause asks the
// person and resumes with the answer; Stop ends a run `cancelled`; a stored run is
// replayed from the runs list.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { chooseSimulate, forgetLayout, openCrew } from "./app.mjs";
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
  // (The run dock was unfolded here: the next test file gets a window as new.)
  if (session) await forgetLayout(session).catch(() => {});
  await session?.end();
});

/** Waits until the run's status matches `pattern`. */
async function statusIs(pattern, what) {
  await session.waitFor(async () => pattern.test(await status()), { message: async () => `${what}: a status matching ${pattern} (it says: ${JSON.stringify(await status())})` });
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
  await openCrew(session, `${CREWS}/interview.yaml`);
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseSimulate(session, "interview.yaml");
  await recordActive();
  await session.type(".run-input", "Interview me about colours");
  await session.click(RUN);

  // The host asks: the run pauses, the Wait node is active, the panel asks for an answer.
  await statusIs(/^Paused/, "the pause");
  assert.match(await status(), /waiting for you \(Host said \[ASK_YOU\]\)/);
  assert.match((await session.texts(".run-label"))[0], /The crew is waiting for you: Host/);
  assert.equal((await session.find(".wait-node.run-waiting, .wait-node.run-active")).length, 1, "the Wait node shows the crew waiting");
  await session.screenshot(`${OUT}/20-run-paused.png`);

  await session.type(".run-input", "Blue");
  await session.click(RESUME);
  await statusIs(/^Finished/, "the end");
  assert.equal(await status(), "Finished: Writer said [DONE]");
  const active = await session.execute("return window.__active");
  assert.deepEqual(active, ["Host", "Writer"], `the highlight moved ${active.join(" → ")}`);

  // One transfer, and the moves that are not signals to another agent: to Wait, to End.
  const handoffs = await session.texts(".run-handoffs li");
  assert.equal(handoffs.length, 3, `three moves: ${handoffs}`);
  assert.match(handoffs[0], /Host → Wait for you\s*· said \[ASK_YOU\], so the crew waits for you/);
  assert.match(handoffs[1], /Host → Writer\s*· because the reply said \[SUMMARY\] \(exact\)/);
  assert.match(handoffs[2], /Writer → End\s*· said \[DONE\], so the run is over/);
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
  await session.waitFor(async () => (await session.find(".agent-card.run-active")).length === 1, { message: "the host at work" });
  await session.click(STOP);
  await session.execute(`document.querySelector(arguments[0]).click()`, [STOP]);
  await statusIs(/^Cancelled|Stopped by you/, "the cancellation");
  assert.equal((await session.find(".run-error")).length, 0, "a second Stop is not an error");
  await session.screenshot(`${OUT}/22-run-cancelled.png`);
});

test("a stored run is replayed on the graph from the runs list", async () => {
  await session.waitFor(async () => (await session.find(".runs-list .sidebar-item")).length >= 2, { message: "two runs in the runs list" });
  // Newest first: the cancelled run, then the finished interview (scrolled to, below the crews).
  await session.execute(`document.querySelector(".runs-list li:nth-child(2)").scrollIntoView({ block: "nearest" })`);
  await session.click(".runs-list li:nth-child(2) .sidebar-item");
  await statusIs(/^Replay/, "the replay");
  await session.visible(".run-replay");
  await statusIs(/Finished: Writer said \[DONE\]/, "the replay to reach the end");
  await session.screenshot(`${OUT}/23-run-replayed.png`);
});

test("Settings: a model is added, made the default and removed; the list shows no key", async () => {
  await session.click(".sidebar-bottom .sidebar-item");
  await session.visible(".settings-model strong");
  assert.deepEqual(await session.texts(".settings-model strong"), ["local"]);
  await session.type('.settings-add input[name="model-name"]', "fast");
  await session.type('.settings-add input[name="provider-model"]', "gpt-4o-mini");
  // (The form's button is further down the dialog: scrolled to, as a person would.)
  await session.execute(`document.querySelector('.settings-add button[type="submit"]').scrollIntoView({ block: "nearest" })`);
  await session.click('.settings-add button[type="submit"]');
  // Back up to the list (the dialog is longer than the window).
  await session.execute(`document.querySelector(".settings-models").scrollIntoView({ block: "start" })`);
  await session.waitFor(async () => (await session.texts(".settings-model strong")).includes("fast"), { message: "the new model in the list" });
  // The first model of one's own may become the default by itself; else choose it.
  const isDefault = async (model) => (await session.texts(".settings-model.default strong")).includes(model);
  /** Clicks `model`'s button reading `text` if it is there and enabled; says whether. */
  const press = (model, text) =>
    session.execute(
      `const b = [...document.querySelectorAll('.settings-model[data-model="' + arguments[0] + '"] button')].find((b) => b.textContent === arguments[1] && !b.disabled);
       if (b) b.click(); return Boolean(b);`,
      [model, text],
    );
  const byText = (model, text) => session.waitFor(() => press(model, text), { message: `the button '${text}' of the model ${model}` });
  let pressed = false;
  await session.waitFor(
    async () => {
      if (await isDefault("fast")) return true;
      if (!pressed) pressed = await press("fast", "Make default");
      return false;
    },
    { message: "fast as the default" },
  );
  await byText("local", "Make default");
  await session.waitFor(() => isDefault("local"), { message: "local as the default again" });
  await session.waitFor(async () => /no key set/.test((await session.texts('.settings-model[data-model="fast"]'))[0] ?? ""), { message: "the fast model saying it has no key set" });
  await session.screenshot(`${OUT}/24-settings.png`);
  await byText("fast", "Remove");
  await session.waitFor(async () => !(await session.texts(".settings-model strong")).includes("fast"), { message: "fast removed" });
  await session.keys("\uE00C");
});
