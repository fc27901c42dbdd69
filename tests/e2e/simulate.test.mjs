// End-to-end test of Simulate mode by hand, recordings, usage and a failing provider
// in the real window (run by run-window.sh): the interview crew run with each reply
// typed — the Host's turn waits for the person's reply (its [ASK_YOU] chip pauses the
// run), a reload while a turn waits catches up on the run with its reply box, the
// Writer's [DONE] finishes it — with every node of the graph on screen once the run
// dock is open; the run exported to a file holding every event, imported back and
// replayed, a truncated copy refused in words; a run on the local model (llama.cpp's
// llama-server with SmolLM2, started by the app) whose tokens show in the Usage
// view; a Simulate script whose second reply is a provider error; and stepping
// through a run: paused before the student's turn (its card's menu), one turn
// stepped with words for it, then on to the end without pausing.
//
// The file dialogs cannot be driven by WebDriver: the window's automation hook
// (window.crewgraph.exportRun / importRecording) takes the path the dialog would
// have answered and goes on as the buttons do.
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { chooseSimulate, forgetLayout, openCrew } from "./app.mjs";
import { CANVAS_STATE, RECORD_ACTIVE } from "./in-page.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;
/** Files this test writes: the recordings, and crews of its own outside the crews folder. */
let work;

before(async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  work = await mkdtemp(join(tmpdir(), "crewgraph-simulate-"));
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "simulate-";
});

after(async () => {
  // (The run dock was unfolded here: the next test file gets a window as new.)
  if (session) await forgetLayout(session).catch(() => {});
  await session?.end();
  if (work) await rm(work, { recursive: true, force: true });
});

const ENTER = "\uE007";
const RUN = ".run-buttons .run-button:nth-child(1)";
const RESUME = ".run-buttons .run-button:nth-child(3)";
const status = async () => (await session.texts(".run-status"))[0] ?? "";
/** The page expression that says the automation hook, with its run tools, is there. */
const HOOK = "window.crewgraph && window.crewgraph.runId";

/** Waits until the run's status matches `pattern`. */
async function statusIs(pattern, what) {
  await session.waitFor(async () => pattern.test(await status()), { message: async () => `${what}: a status matching ${pattern} (it says: ${JSON.stringify(await status())})` });
}

/** Unfolds the run dock (when folded) and chooses the model whose words start with
 * `words`, once the model list offers it. */
async function chooseModel(words) {
  if ((await session.find('.run-dock-toggle[aria-expanded="false"]')).length) await session.click('.run-dock-toggle[aria-expanded="false"]');
  let offered = "";
  await session.waitFor(
    async () => {
      const chosen = await session.execute(
        `const select = document.querySelector('.run-select');
         if (!select) return '(no model list yet)';
         const option = [...select.options].find((o) => o.textContent.startsWith(arguments[0]));
         if (!option) return [...select.options].map((o) => o.textContent).join(', ');
         const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set;
         set.call(select, option.value);
         select.dispatchEvent(new Event('change', { bubbles: true }));
         return true;`,
        [words],
      );
      if (chosen !== true) offered = chosen;
      return chosen === true;
    },
    { message: () => `the model list to offer "${words}" (it offers: ${offered})` },
  );
}

/** Records, in the page, every agent card that becomes active, in order. */
async function recordActive() {
  await session.execute(RECORD_ACTIVE);
}

/** The nodes of the graph that are not wholly inside the canvas (by their names). */
const nodesOutOfView = () =>
  session.execute(`
    const canvas = document.querySelector('.canvas').getBoundingClientRect();
    return [...document.querySelectorAll('.react-flow__node')].filter((node) => {
      const r = node.getBoundingClientRect();
      return r.top < canvas.top - 1 || r.left < canvas.left - 1 || r.bottom > canvas.bottom + 1 || r.right > canvas.right + 1;
    }).map((node) => node.getAttribute('data-id'));`);

/** Waits until every node of the graph is wholly inside the canvas and the canvas
 * is at rest (no glide under way, nothing moved since a moment ago). */
async function everyNodeInView(when) {
  let out = [];
  await session.waitForStable(
    async () => {
      out = await nodesOutOfView();
      const at = await session.execute(CANVAS_STATE);
      return out.length === 0 && at;
    },
    { message: () => `every node on screen ${when} (out of view: ${JSON.stringify(out)})` },
  );
}

/** Types `text` as `agent`'s reply (its box must be there) and sends it with Enter. */
async function reply(agent, text) {
  const box = `.run-reply[data-agent="${agent}"] textarea`;
  await session.visible(`.run-reply[data-agent="${agent}"] label`);
  await session.type(box, text);
  await session.type(box, ENTER, { clear: false });
}

/** Calls an automation hook that answers a promise; resolves to its `{ok}` or `{error}`. */
async function callHook(name, args) {
  await session.execute(
    `window.__hook = null;
     window.crewgraph[arguments[0]](...arguments[1]).then((ok) => (window.__hook = { ok: ok ?? null }), (e) => (window.__hook = { error: String(e && e.message || e) }));`,
    [name, args],
  );
  return session.waitFor(() => session.execute("return window.__hook"), { message: `${name} to answer` });
}

test("the interview in Simulate (type each reply): each turn waits for the person's reply, [ASK_YOU] pauses, [DONE] finishes", async () => {
  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseModel("Simulate (type each reply)");
  await session.waitFor(async () => /you type its reply/.test((await session.texts(".run-model .run-note")).join(" ")), { message: "the note on typing each reply" });
  await recordActive();
  await session.type(".run-input", "Interview me about colours");
  await session.click(RUN);

  // Host's turn: a box under its name, its own signals as chips.
  await session.visible('.run-reply[data-agent="host"] label');
  assert.match((await session.texts(".run-reply-label"))[0], /What does Host say\?/);
  assert.deepEqual(await session.texts('.run-reply[data-agent="host"] .run-chip'), ["[ASK_YOU]", "[SUMMARY]"]);
  await statusIs(/Running: Host is working/, "the host at work");
  // The dock unfolded: the graph is fitted again (once the canvas has its new size),
  // End and Wait included.
  await everyNodeInView("with the run dock open");
  await session.screenshot(`${OUT}/50-typed-host-turn.png`);

  // Host asks the person: the [ASK_YOU] chip adds the signal, Enter sends, the run pauses.
  const hostBox = '.run-reply[data-agent="host"] textarea';
  await session.type(hostBox, "What is your favourite colour?");
  await session.click('.run-reply[data-agent="host"] .run-chip');
  await session.waitFor(async () => (await session.execute(`return document.querySelector(arguments[0]).value`, [hostBox])) === "What is your favourite colour? [ASK_YOU]", {
    message: async () => `the chip's signal added to the reply (it reads ${JSON.stringify(await session.execute(`return document.querySelector(arguments[0]).value`, [hostBox]))})`,
  });
  await session.type(hostBox, ENTER, { clear: false });
  await statusIs(/^Paused/, "the pause");
  assert.match(await status(), /waiting for you \(Host said \[ASK_YOU\]\)/);
  assert.match((await session.texts(".run-transcript")).join("\n"), /What is your favourite colour\? \[ASK_YOU\]/);
  await session.screenshot(`${OUT}/51-typed-paused.png`);

  // The answer; the typed run resumes typed, and Host's next turn waits again.
  await session.type(".run-input", "Blue");
  await session.click(RESUME);
  await session.visible('.run-reply[data-agent="host"] label');
  const before = await session.execute("return window.__active");

  // A reload while Host's turn waits: the window catches up on the run, live, with its
  // box. (Everything below waits for the new page: the old one, marked, may still
  // answer for a moment after the reload was asked for.)
  await session.execute("window.__beforeReload = true; setTimeout(() => location.reload(), 0);");
  await session.waitFor(() => session.execute("return !window.__beforeReload && Boolean(window.crewgraph && window.crewgraph.runId)"), { message: "the reloaded page" });
  await session.visible('.run-reply[data-agent="host"] label');
  await statusIs(/Running: Host is working/, "the run caught up after the reload");
  await session.waitFor(async () => /You answered Host\s+Blue/.test((await session.texts(".run-transcript")).join("\n")), { message: "the transcript caught up after the reload" });
  await recordActive();

  await reply("host", "Thank you, passing it on. [SUMMARY]");
  await session.visible('.run-reply[data-agent="writer"] label');
  assert.deepEqual(await session.texts('.run-reply[data-agent="writer"] .run-chip'), ["[DONE]"]);
  await session.screenshot(`${OUT}/52-typed-writer-turn.png`);
  await reply("writer", "They like blue, the colour of the sea. [DONE]");

  await statusIs(/^Finished/, "the end");
  assert.equal(await status(), "Finished: Writer said [DONE]");
  const active = [...before, ...(await session.execute("return window.__active"))];
  assert.deepEqual(active, ["Host", "Host", "Writer"], `the highlight moved ${active.join(" → ")}`);
  const handoffs = await session.texts(".run-handoffs li");
  assert.match(handoffs.join("\n"), /Host → Writer\s*· because the reply said \[SUMMARY\] \(exact\)/);
  // The words under the End node made the view fit again (a glide): its end.
  await everyNodeInView("when the run has finished");

  // Simulate mode spends no tokens; the Usage view says so and charts the time.
  await session.click('.run-tab[aria-selected="false"]');
  await session.visible(".run-usage-total");
  assert.match((await session.texts(".run-usage-total"))[0], /^No tokens spent · \d+\.\d s$/);
  assert.equal((await session.find(".run-usage canvas")).length, 1, "one chart: the time");
  await session.screenshot(`${OUT}/53-typed-finished-usage.png`);
});

test("the run's recording holds every event; imported back it is replayed; a truncated copy is refused in words", async () => {
  const runId = await session.execute("return window.crewgraph.runId()");
  assert.match(runId, /^run-/);
  await session.visible(".run-export button");
  const file = join(work, "interview-run.json");
  assert.deepEqual(await callHook("exportRun", [runId, file]), { ok: file });

  const text = await readFile(file, "utf8");
  const recording = JSON.parse(text);
  assert.equal(recording.format, "crewgraph-run-recording");
  assert.equal(recording.version, 1);
  assert.equal(recording.run.id, runId);
  assert.match(recording.crew, /interview\.yaml$/);
  const shown = await session.execute("return window.crewgraph.runEvents()");
  assert.equal(recording.events.length, shown, "the file holds every event the window showed");
  assert.deepEqual(
    recording.events.map((e) => e.seq),
    recording.events.map((_, i) => i),
  );
  assert.ok(recording.events.every((e) => e.run_id === runId));
  const replies = recording.events.filter((e) => e.type === "agent_response").map((e) => e.content);
  assert.deepEqual(replies, ["What is your favourite colour? [ASK_YOU]", "Thank you, passing it on. [SUMMARY]", "They like blue, the colour of the sea. [DONE]"]);

  // Imported back: replayed on the graph with the replay bar (and no Export: it is a file already).
  assert.deepEqual(await callHook("importRecording", [file]), { ok: null });
  await statusIs(/^Replay/, "the replay");
  await session.visible(".run-replay");
  await statusIs(/Finished: Writer said \[DONE\]/, "the replay showing the run's end");
  assert.equal((await session.find(".run-export button")).length, 0);
  assert.equal((await session.find(".banner")).length, 0, "its crew is here: no notice");
  await session.click('.run-replay button[aria-label="Back to the start"]');
  await session.waitFor(async () => /^0 \//.test((await session.texts(".run-replay-where"))[0] ?? ""), { message: "the replay back at the start (0 / …)" });
  await session.click('.run-replay button[aria-label="Play"]');
  await statusIs(/Replay · Finished: Writer said \[DONE\]/, "the replay to play to its end");
  await session.screenshot(`${OUT}/54-recording-replayed.png`);

  // A truncated copy, and a file that is no recording: refused, saying what is wrong.
  const cut = join(work, "interview-run-cut.json");
  await writeFile(cut, text.slice(0, Math.floor(text.length / 2)));
  await callHook("importRecording", [cut]);
  await session.visible(".banner.error");
  const [truncated] = await session.texts(".banner.error");
  assert.match(truncated, /Could not open the recording: '.*interview-run-cut\.json' ends early .* the recording is truncated/);
  await session.screenshot(`${OUT}/55-recording-truncated.png`);
  const other = join(work, "settings.json");
  await writeFile(other, JSON.stringify({ theme: "dark" }));
  await callHook("importRecording", [other]);
  await session.waitFor(async () => /is not a Crewgraph run recording/.test((await session.texts(".banner.error"))[0] ?? ""), { message: "the second refusal" });
  await session.click(".banner button");
  await session.click('.run-replay button[title="Stop replaying"]');
});

test("a run on the local model shows the tokens it spent in the Usage view", async () => {
  const crew = join(work, "haiku.yaml");
  await writeFile(
    crew,
    [
      'version: "1.0"',
      "name: Haiku",
      "description: One poet writes a short poem.",
      "entry_point: poet",
      "agents:",
      "  - id: poet",
      "    name: Poet",
      "    role: Writes a very short poem",
      "    system_prompt: You write one very short poem of three lines, then stop.",
      "    is_terminal: true",
      "",
    ].join("\n"),
  );
  await openCrew(session, crew, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name");
  await chooseModel("local");
  await session.type(".run-input", "A poem about the sea");
  await session.click(RUN);
  // The app starts llama-server on demand: the first reply may take a while (minutes
  // on a busy machine).
  await session.waitFor(async () => /^(Finished|Stopped|Failed)/.test(await status()), {
    timeout: 300_000,
    message: async () => `the local model's run to end (it says: ${JSON.stringify(await status())})`,
  });
  const ended = await status();
  assert.match(ended, /^Finished/, `the run on the local model finished (${ended})`);
  // The transcript may be drawn a frame after the status: wait for the poet's words.
  await session.waitFor(async () => (await session.texts(".run-transcript .run-turn .run-text"))[0]?.length > 0, {
    timeout: 30_000,
    message: async () => `the poet's words in the transcript (it shows: ${JSON.stringify(await session.texts(".run-transcript .run-turn"))})`,
  });
  await session.click('.run-tab[aria-selected="false"]');
  await session.visible(".run-usage-total");
  const [total] = await session.texts(".run-usage-total");
  const counted = /^([\d,]+) tokens in · ([\d,]+) out · [\d.]+ s$/.exec(total);
  assert.ok(counted, `the Usage view counts tokens: ${total}`);
  assert.ok(Number(counted[1].replace(/,/g, "")) > 0 && Number(counted[2].replace(/,/g, "")) > 0, `tokens in and out are not zero: ${total}`);
  assert.equal((await session.find(".run-usage canvas")).length, 2, "two charts: tokens and time");
  // The runs list shows the run's tokens too.
  await session.waitFor(
    async () => {
      // (The runs list sits below the crews: scrolled to, as a person would.)
      await session.execute(`document.querySelector(".runs-list li")?.scrollIntoView({ block: "nearest" })`);
      return (await session.texts(".runs-list .sidebar-tokens")).some((t) => /tokens$/.test(t));
    },
    { message: "the run's tokens in the runs list" },
  );
  await session.screenshot(`${OUT}/56-local-model-usage.png`);
});

test("a provider failing mid-run: the transcript shows the error and the graph marks the agent failed", async () => {
  const interview = await readFile(`${CREWS}/interview.yaml`, "utf8");
  await mkdir(join(work, "scripts"), { recursive: true });
  await writeFile(join(work, "flaky.yaml"), interview.replace("name: Interview", "name: Flaky interview"));
  await writeFile(
    join(work, "scripts", "flaky.yaml"),
    ['replies:', '  host: ["Thank you, passing it on. [SUMMARY]"]', '  writer: [{ error: "provider unavailable" }]', ""].join("\n"),
  );
  await openCrew(session, join(work, "flaky.yaml"), { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseModel("Simulate (replies from a script)");
  await session.waitFor(async () => (await session.texts(".run-script-name")).includes("flaky.yaml"), { message: "the crew's script" });
  await session.type(".run-input", "Interview me");
  await session.click(RUN);
  await statusIs(/^Failed/, "the failure");
  assert.match(await status(), /provider unavailable/);
  const [error] = await session.texts(".run-turn-error");
  assert.match(error, /provider unavailable/);
  assert.match((await session.texts(".run-turn-failed .run-turn-name"))[0], /Writer/);
  // (The graph shows an update a frame after the run dock: store.ts, `graph`.)
  await session.waitFor(async () => (await session.texts(".agent-card.run-failed .agent-name")).length > 0, { message: "the failed card" });
  assert.deepEqual(await session.texts(".agent-card.run-failed .agent-name"), ["Writer"]);
  assert.deepEqual(await session.texts(".agent-card.run-done .agent-name"), ["Host"]);
  await session.screenshot(`${OUT}/57-provider-failed.png`);
});

/** Waits until the page as it is now has been drawn, so a screenshot shows it. */
const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** Screenshots at 1440×900 and at 200 % zoom, `selector` scrolled into view in each. */
async function screenshots(name, selector) {
  const show = () => session.execute(`const e = document.querySelector(arguments[0]); if (e) e.scrollIntoView({ block: "nearest" });`, [selector]);
  await show();
  await drawn();
  await session.screenshot(`${OUT}/${name}.png`);
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await show();
    await drawn();
    await session.screenshot(`${OUT}/${name}-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    await drawn();
  }
}

/** Opens the card's menu of `agent` (a right-click event on it) and chooses `label`. */
async function fromCardMenu(agent, label) {
  await session.execute(
    `const card = document.querySelector(arguments[0]);
     const r = card.getBoundingClientRect();
     card.dispatchEvent(new MouseEvent('contextmenu', { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, button: 2, bubbles: true, cancelable: true }));`,
    [`.react-flow__node[data-id="agent:${agent}"]`],
  );
  await session.waitFor(
    () =>
      session.execute(
        `const item = [...document.querySelectorAll('.context-menu [role="menuitem"]')].find((b) => !b.disabled && b.querySelector('span')?.textContent === arguments[0]);
         if (item) item.click();
         return Boolean(item);`,
        [label],
      ),
    { message: async () => `the card's menu to offer "${label}" (it offers: ${JSON.stringify(await session.texts('.context-menu [role="menuitem"]'))})` },
  );
}

/** What the paused panel shows: its title, the messages, the link, whether it has the focus. */
const breakPanel = () =>
  session.execute(`
    const card = document.querySelector(".run-break");
    if (!card) return null;
    return {
      title: card.querySelector("h3")?.textContent,
      messages: [...card.querySelectorAll(".run-break-messages li")].map((li) => li.textContent),
      seen: card.querySelector(".run-break-seen button")?.textContent ?? null,
      focused: card.contains(document.activeElement),
      focus: document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.id ?? null,
    };`);

/** Presses the paused panel's button `n` (1: Step one turn, 2: Continue, 3: Continue
 * without pausing), scrolled into view first as a person would. */
async function way(n) {
  const css = `.run-break-ways .run-button:nth-child(${n})`;
  await session.execute(`document.querySelector(arguments[0])?.scrollIntoView({ block: "nearest" })`, [css]);
  await session.click(css);
}

const pauseMarks = () => session.execute(`return [...document.querySelectorAll(".agent-card .pause-tag")].map((t) => t.getAttribute("aria-label"))`);

test("stepping through: paused before the student from its card's menu, one turn stepped with words for it, then on without pausing", async () => {
  const crew = join(work, "two-questions.yaml");
  await copyFile(new URL("./fixtures/step-through.yaml", import.meta.url), crew);
  await mkdir(join(work, "scripts"), { recursive: true });
  await copyFile(new URL("./fixtures/step-through-script.yaml", import.meta.url), join(work, "scripts", "two-questions.yaml"));
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await openCrew(session, crew, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });

  // The card's menu: the student's card is marked, calmly, and says so in full.
  await fromCardMenu("student", "Pause before Student");
  await session.waitFor(async () => (await pauseMarks()).length === 1, { message: "the student's card marked" });
  assert.deepEqual(await pauseMarks(), ["A run pauses before Student's turn"]);
  assert.equal(await session.execute(`return document.querySelector('.agent-card[data-agent="student"] .pause-tag').textContent`), "❚❚ pauses here");

  await chooseSimulate(session, "two-questions.yaml", { pace: "instant" });
  await session.type(".run-input", "Two questions on fractions, please");
  await session.click(RUN);

  // Paused before the student: the panel says it, shows what it is about to be given, and has the focus.
  await statusIs(/^Paused before Student's turn/, "the pause before the student");
  assert.equal(await status(), "Paused before Student's turn: go on when you are ready");
  await session.visible(".run-break");
  await session.waitFor(async () => (await breakPanel())?.focused, { message: async () => `the focus in the paused panel (${JSON.stringify(await breakPanel())})` });
  const first = await breakPanel();
  assert.equal(first.title, "Paused before Student's turn");
  assert.deepEqual(first.messages, ["You asked: Two questions on fractions, please", "Teacher: Question 1: what is 1/2 + 1/4? [QUESTION]"]);
  assert.equal(first.seen, null, "no earlier turn of the student's to show");
  assert.match((await session.texts(".run-break-instructions summary"))[0], /Its instructions/);
  await screenshots("60-paused-before-student", ".run-break");

  // A line for the student, and one turn: the run pauses before the next agent, the teacher.
  await session.type(".run-break-words", "Show your working, please.");
  assert.deepEqual(await session.texts(".run-break-ways .run-button"), ["Step one turn", "Continue", "Continue without pausing"]);
  await way(1);
  await statusIs(/^Paused before Teacher's turn/, "the pause before the teacher, one turn on");
  await session.waitFor(async () => (await breakPanel())?.title === "Paused before Teacher's turn", { message: "the panel for the teacher's turn" });
  await session.waitFor(async () => (await breakPanel())?.focused, { message: "the focus in the panel again" });
  const second = await breakPanel();
  assert.deepEqual(second.messages, [
    "Teacher: Question 1: what is 1/2 + 1/4? [QUESTION]",
    "You told Student: Show your working, please.",
    "Student: 1/2 is 2/4, so 2/4 + 1/4 = 3/4. [ANSWER]",
  ]);
  assert.equal(second.seen, "What Teacher saw last time");
  assert.equal(await session.execute(`return document.querySelector(".run-break-words").value`), "", "the box is empty for the new pause");
  await screenshots("61-paused-before-teacher", ".run-break");

  // On to the end without pausing: the student's second turn does not stop it, and the mark goes.
  await way(3);
  await statusIs(/^Finished/, "the end");
  assert.equal(await status(), "Finished: Teacher said [DONE]");
  assert.equal((await session.find(".run-break")).length, 0, "no paused panel");
  assert.deepEqual(await pauseMarks(), [], "the student's card is no longer marked");
  const transcript = (await session.texts(".run-transcript")).join("\n");
  assert.match(transcript, /9 divided by 3 is 3/);
  await screenshots("62-stepped-to-the-end", ".run-transcript");
});
