// End-to-end test of runs in the real window (run by run-window.sh): a crew run in
// Simulate mode with the script that comes with it — the highlight moves from agent
// to agent in order, the tracker says why each handoff happened, a pause asks the
// person and resumes with the answer; Stop ends a run `cancelled`; a stored run is
// replayed from the runs list; a reply whose signal is misspelt is said on the card
// and in the tracker, and accepting the spelling is an edit that is saved and undone.
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { chooseSimulate, forgetLayout, openCrew } from "./app.mjs";
import { RECORD_ACTIVE } from "./in-page.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;
/** Crews this test writes, outside the crews folder. */
let work;

before(async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  work = await mkdtemp(join(tmpdir(), "crewgraph-runs-"));
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "runs-";
});

after(async () => {
  // (The run dock was unfolded here: the next test file gets a window as new.)
  if (session) await forgetLayout(session).catch(() => {});
  await session?.end();
  if (work) await rm(work, { recursive: true, force: true });
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

const CONTROL = "\uE009";

/** Waits until the page as it is now has been drawn, so a screenshot shows it. */
const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** Clicks the run dock's tab reading `label`, when the dock shows tabs for it. */
const tab = (label) =>
  session.execute(`const t = [...document.querySelectorAll(".run-tab")].find((t) => t.textContent === arguments[0]); if (t) t.click(); return Boolean(t);`, [label]);

/** Screenshots of the hint: at 1440×900, and at 200 % zoom (the page drawn twice as
 * large: the narrow dock shows the transcript and the handoffs as tabs, each taken),
 * the hint scrolled into view in each. */
async function screenshots(name) {
  const show = () =>
    session.execute(`for (const e of document.querySelectorAll(".near-miss-turn, .run-missed")) e.scrollIntoView({ block: "nearest" });`);
  await show();
  await drawn();
  await session.screenshot(`${OUT}/${name}.png`);
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await show();
    await drawn();
    await session.screenshot(`${OUT}/${name}-200.png`);
    if (await tab("Handoffs")) {
      await show();
      await drawn();
      await session.screenshot(`${OUT}/${name}-200-handoffs.png`);
      await tab("Transcript");
    }
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    await drawn();
  }
}

test("a misspelt signal: the card and the tracker say what the student wrote; Accept adds the alias, saved in the file, and Undo takes it back", async () => {
  const crew = join(work, "office-hours.yaml");
  await copyFile(new URL("./fixtures/near-miss.yaml", import.meta.url), crew);
  await mkdir(join(work, "scripts"));
  await copyFile(new URL("./fixtures/near-miss-script.yaml", import.meta.url), join(work, "scripts", "office-hours.yaml"));
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await openCrew(session, crew);
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseSimulate(session, "office-hours.yaml", { pace: "instant" });
  await session.type(".run-input", "Ask about fractions");
  await session.click(RUN);
  await statusIs(/^Finished/, "the end (the student's reply fell back to the teacher)");
  assert.equal(await status(), "Finished: Teacher said [ANSWERED]");

  // The card says it, with the first fix; the tracker has a line at its place in time.
  const said = "Student wrote [QUESTON] — did you mean [QUESTION]?";
  await session.visible('.agent-card[data-agent="student"] .agent-miss-words');
  assert.deepEqual(await session.texts('.agent-card[data-agent="student"] .agent-miss-words'), [said]);
  assert.deepEqual(await session.texts('.agent-card[data-agent="student"] .near-miss-fix'), ["Accept [QUESTON] as [QUESTION]"]);
  assert.equal((await session.find('.agent-card[data-agent="teacher"] .agent-miss')).length, 0, "the teacher's reply routed: no note");
  const lines = await session.texts(".run-handoffs > li");
  assert.equal(lines.length, 3, `the missed route and two moves: ${JSON.stringify(lines)}`);
  assert.match(lines[0], /^Student wrote \[QUESTON\] — did you mean \[QUESTION\]\?/);
  assert.match(lines[1], /Student → Teacher\s*· no signal in the reply, so the next agent of the crew \(automatic fallback\)/);
  assert.match(lines[2], /Teacher → End/);
  assert.deepEqual(await session.texts(".run-missed .near-miss-fix"), ["Accept [QUESTON] as [QUESTION]", "Remind Student of its signals"]);
  assert.match((await session.texts(".run-transcript"))[0], /Student wrote \[QUESTON\] — did you mean \[QUESTION\]\?/);
  await screenshots("25-near-miss");

  // Accept, in the tracker: one edit, checked as any (no problems), the hint says it was made.
  assert.equal((await session.texts(".run-missed .near-miss-fix:nth-child(1)"))[0], "Accept [QUESTON] as [QUESTION]");
  await session.click(".run-missed .near-miss-fix:nth-child(1)");
  await session.waitFor(async () => /\[QUESTON\] now counts as \[QUESTION\] — save the crew to keep it\./.test((await session.texts(".run-missed .near-miss-done"))[0] ?? ""), {
    message: async () => `the tracker's hint to say the fix was made (it says: ${JSON.stringify(await session.texts(".run-missed"))})`,
  });
  assert.match((await session.texts('.agent-card[data-agent="student"] .near-miss-done'))[0] ?? "", /\[QUESTON\] now counts as \[QUESTION\]/);
  assert.deepEqual(await session.texts(".run-missed .near-miss-fix"), ["Remind Student of its signals"]);
  await session.waitFor(
    async () => (await session.find(".crew-status.checking")).length === 0 && /^Ready to run$/.test((await session.texts(".crew-status"))[0] ?? ""),
    { message: async () => `the crew checked with no problems (status: ${JSON.stringify(await session.texts(".crew-status"))})` },
  );
  assert.equal((await session.find(".problems-badge")).length, 0, "no problems");
  const undo = await session.execute(`return document.querySelector('button[aria-label="Undo"]').title`);
  assert.equal(undo, "Undo: Accept [QUESTON] as [QUESTION] (Ctrl+Z)");
  await screenshots("26-near-miss-accepted");

  // Saved as usual: the file has the alias on the signal's entry.
  await session.keys(CONTROL, "s");
  await session.waitFor(async () => (await session.find(".dirty-dot")).length === 0, { message: "the save (the unsaved dot to go)" });
  const saved = await readFile(crew, "utf8");
  await writeFile(`${OUT}/near-miss-saved.yaml`, saved);
  const entry = saved.slice(saved.indexOf("[QUESTION]"), saved.indexOf("[ANSWERED]"));
  assert.match(entry, /aliases:[\s\S]*\[QUESTON\]/, `the entry of [QUESTION] has the alias:\n${saved}`);

  // Undo takes it back: offered again, and saved again the file has no aliases.
  await session.click('button[aria-label="Undo"]');
  await session.waitFor(async () => (await session.texts('.agent-card[data-agent="student"] .near-miss-fix')).includes("Accept [QUESTON] as [QUESTION]"), {
    message: "Accept offered again on the card after Undo",
  });
  assert.equal((await session.find(".run-missed .near-miss-done")).length, 0);
  await session.keys(CONTROL, "s");
  await session.waitFor(async () => (await session.find(".dirty-dot")).length === 0, { message: "the second save" });
  assert.doesNotMatch(await readFile(crew, "utf8"), /aliases/);
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
