// End-to-end test of the run side of the window (issue 16), run by run-window.sh:
//
// - a run stays with its crew: + New crew, another crew opened, or a past run picked
//   in the sidebar then another crew opened never carries a run along;
// - Simulate typed by hand: a group's time limit does not count the person's typing;
// - the handoff limit reads as the transfers a run may make;
// - a scripted run can be watched: its pace (at once, as a model would, step by step
//   with Next) remembered per crew; the tracker names the group's "then" and the move
//   to End;
// - the canvas keeps its room: the run dock resizes within half the window and is
//   remembered, the problems fold into a badge while a run is shown, and at 200 %
//   zoom the transcript has room and the minimap gives way;
// - a line signal's chip asks for its payload, which the tracker shows;
// - a failed run says what happened and what to try, the details a click away; a
//   model that failed its check is named before the run, with a way on;
// - Try one agent: a chat with one agent alone;
// - the sidebar's runs are named by what they were asked, per crew, searchable.
//
// Screenshots (target/e2e/runside-*.png) at 1440×900, 1280×720 and 200 % zoom of a
// run in progress, a finished run, the step pace with Next, a failed run's message
// and the try-out chat.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { choosePace, chooseSimulate, forgetLayout, openCrew, unfoldRunPanel } from "./app.mjs";
import { Session } from "./webdriver.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;
/** Crews of this test's own, outside the crews folder (each with its script beside it). */
let work;

const HOOK = "window.crewgraph && window.crewgraph.runId";
const RUN = ".run-buttons .run-button:nth-child(1)";
const STOP = ".run-buttons .run-button:nth-child(2)";
const ENTER = "\uE007";

before(async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  work = await mkdtemp(join(tmpdir(), "crewgraph-runside-"));
  await mkdir(join(work, "scripts"), { recursive: true });
  await writeCrews();
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "runside-";
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  // The panels and paces as a new window has them (the window remembers both).
  await session.waitFor(() => session.execute(`return Boolean(${HOOK})`), { message: "the window" });
  await forgetLayout(session);
});

after(async () => {
  // Nothing of this test's is left for the next: the layout and paces it chose.
  await forgetLayout(session).catch(() => {});
  await session?.end();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Closes Settings with its Done button. */
async function closeSettings() {
  await session.waitFor(
    () => session.execute(`const b = [...document.querySelectorAll('.settings-dialog button')].find((b) => b.textContent.trim() === 'Done'); if (b) b.click(); return Boolean(b);`),
    { message: "Settings' Done" },
  );
  await session.waitFor(async () => (await session.find(".settings-dialog")).length === 0, { message: "Settings closed" });
}


/** The test's own crews: a group with a short time limit, a loop bounded by
 * max_handoffs, and a crew with a warning (an unknown key). */
async function writeCrews() {
  await writeFile(
    join(work, "panel.yaml"),
    `version: "1.0"
name: Panel
description: A host asks; two panellists answer side by side within 3 seconds; the host closes.
entry_point: host
agents:
  - id: host
    name: Host
    role: Asks the panel
  - id: ana
    name: Ana
    role: Answers
  - id: bo
    name: Bo
    role: Answers
signals:
  - name: "[ASK]"
    behavior: parallel
  - name: "[DONE]"
    behavior: terminate
routing:
  signals:
    host:
      - signal: "[ASK]"
        target: panel
      - signal: "[DONE]"
        target: ""
  parallel_groups:
    panel:
      agents: [ana, bo]
      timeout: 3s
      wait_for_all: true
      next_agent: host
`,
  );
  await writeFile(
    join(work, "pingpong.yaml"),
    `version: "1.0"
name: Ping pong
description: Two agents pass the ball until the crew's limit stops them.
entry_point: ping
max_handoffs: 3
agents:
  - id: ping
    name: Ping
    role: Hits the ball
  - id: pong
    name: Pong
    role: Hits it back
signals:
  - name: "[HIT]"
    behavior: route
routing:
  signals:
    ping:
      - signal: "[HIT]"
        target: pong
    pong:
      - signal: "[HIT]"
        target: ping
`,
  );
  await writeFile(
    join(work, "scripts", "pingpong.yaml"),
    `replies:
  ping: ["Ping! [HIT]", "Ping again! [HIT]", "Ping a third time! [HIT]"]
  pong: ["Pong! [HIT]", "Pong again! [HIT]"]
`,
  );
  await writeFile(
    join(work, "warned.yaml"),
    `version: "1.0"
name: Warned
description: One agent, and a key Crewgraph does not know (a warning, not an error).
entry_point: solo
colour: blue
agents:
  - id: solo
    name: Solo
    role: Says one thing
    is_terminal: true
`,
  );
  await writeFile(join(work, "scripts", "warned.yaml"), `replies:\n  solo: ["Hello there."]\n`);
}

const status = async () => (await session.texts(".run-status"))[0] ?? "";

/** Waits until the run's status matches `pattern`. */
async function statusIs(pattern, what) {
  await session.waitFor(async () => pattern.test(await status()), {
    timeout: 120_000,
    message: async () => `${what}: a status matching ${pattern} (it says: ${JSON.stringify(await status())})`,
  });
}

/** Chooses the model whose words start with `words` in the run panel's list. */
async function chooseModel(words) {
  await unfoldRunPanel(session);
  let offered = "";
  await session.waitFor(
    async () => {
      const chosen = await session.execute(
        `const select = document.querySelector('.run-select');
         if (!select) return '(no model list yet)';
         const option = [...select.options].find((o) => o.textContent.startsWith(arguments[0]));
         if (!option) return [...select.options].map((o) => o.textContent).join(', ');
         Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, option.value);
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

/** Waits until the page as it is now has been drawn (two frames). */
const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** Where the window's regions are: waited on until it stops changing (a resize or a
 * zoom is followed by the panels finding their room, then the canvas its fit). */
const regions = () =>
  session.execute(`
    const r = (css) => { const b = document.querySelector(css)?.getBoundingClientRect(); return b ? [Math.round(b.left), Math.round(b.top), Math.round(b.width), Math.round(b.height)] : null; };
    return [innerWidth, innerHeight, r('.canvas'), r('.run-dock'), r('.run-transcript'), document.querySelector('.react-flow__viewport')?.style.transform ?? null];`);
const settled = (why) => session.waitForStable(regions, { message: `the window's regions to settle ${why}` });

/** Screenshots at 1440×900, at 1280×720, and at 200 % zoom (1440×900 drawn twice
 * as large); the window is left at 1440×900. */
async function screenshots(name) {
  await settled("before the screenshots");
  await drawn();
  await session.screenshot(`${OUT}/runside-${name}-1440.png`);
  await session.call("POST", "/window/rect", { width: 1280, height: 720 });
  await session.waitFor(() => session.execute("return innerWidth === 1280 && innerHeight === 720"), { message: "the window at 1280×720" });
  await settled("at 1280×720");
  await drawn();
  await session.screenshot(`${OUT}/runside-${name}-1280.png`);
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await session.waitFor(() => session.execute("return innerWidth === 1440 && innerHeight === 900"), { message: "the window at 1440×900" });
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await settled("at 200 %");
    await drawn();
    await session.screenshot(`${OUT}/runside-${name}-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
  }
  await settled("back at 100 %");
}

/** Scrolls the sidebar to a run of its runs list (below the crews, as a person
 * would) and waits until it shows. */
async function showRun(css) {
  await session.waitFor(() => session.execute(`const el = document.querySelector(arguments[0]); el?.scrollIntoView({ block: "center" }); return Boolean(el);`, [css]), { message: `the run ${css} in the list` });
  await session.visible(css);
}

/** What the window shows of a run: the End node's words, the dock's status, the
 * transcript's turns, the tracker's lines, a replay bar. */
const runShown = () =>
  session.execute(`
    return {
      end: document.querySelector('.end-node')?.getAttribute('data-run-words') ?? null,
      endClass: document.querySelector('.end-node')?.className ?? null,
      status: document.querySelector('.run-status')?.textContent ?? null,
      turns: document.querySelectorAll('.run-transcript .run-turn').length,
      moves: document.querySelectorAll('.run-handoffs li').length,
      replay: document.querySelectorAll('.run-replay').length,
      active: document.querySelectorAll('.agent-card.run-active, .agent-card.run-done').length,
    };`);

/** Waits until the window shows no run at all (a crew freshly opened). */
async function showsNoRun(where) {
  let last = null;
  await session.waitFor(
    async () => {
      last = await runShown();
      return last.end === null && !/run-end/.test(last.endClass ?? "") && last.status === "Ready to run" && last.turns === 0 && last.moves === 0 && last.replay === 0 && last.active === 0;
    },
    { message: () => `${where} to show no run (it shows ${JSON.stringify(last)})` },
  );
}

test("a run stays with its crew: + New crew, another crew, a past run then another crew", async () => {
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  await chooseSimulate(session, "exam.yaml", { pace: "instant" });
  await session.type(".run-input", "Give me a short exam on fractions");
  await session.click(RUN);
  await statusIs(/^Finished: Teacher said \[END_EXAM\]/, "the exam's end");
  await session.waitFor(async () => /Finished: Teacher said \[END_EXAM\]/.test((await runShown()).end ?? ""), { message: "the End node's words" });

  // + New crew: nothing of the exam's run comes along.
  await session.click(".sidebar-actions .sidebar-item:first-child");
  await session.waitFor(async () => /New crew/.test((await session.texts(".crew-header h1"))[0] ?? ""), { message: "the new crew" });
  await showsNoRun("the new crew");
  // (The runs list is below the crews: scrolled to, as a person would.)
  await session.execute(`document.querySelector(".runs-none")?.scrollIntoView({ block: "center" })`);
  assert.deepEqual(await session.texts(".runs-none"), ["No runs of this crew yet: write what it should do in the run panel and press Run."]);

  // Another crew, opened: Run is not greyed out by the exam's run.
  await openCrew(session, `${CREWS}/support-triage.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await showsNoRun("the support triage");
  await unfoldRunPanel(session);
  await session.type(".run-input", "My invoice is wrong");
  await session.waitFor(() => session.execute(`return !document.querySelector(arguments[0]).disabled`, [RUN]), { message: "Run enabled on the support triage" });

  // The exam's past run, picked in the sidebar (all crews' runs): its crew opens and
  // the run is replayed there; then another crew opened shows none of it.
  await session.click('.runs-which button[aria-checked="false"]');
  const examRun = '.runs-list .sidebar-item[title*="Give me a short exam on fractions"]';
  await showRun(examRun);
  assert.match((await session.texts(`${examRun} .sidebar-run-input`))[0], /^Give me a short exam on fractions$/);
  // (The revision of the crew it ran, once the crew was kept as one.)
  assert.match((await session.texts(`${examRun} .sidebar-run-when`))[0], /^\d{1,2}:\d\d( [AP]M)? · finished( · revision \d+)? · Fractions exam$/);
  await session.click(examRun);
  await session.waitFor(async () => /Fractions exam/.test((await session.texts(".crew-header h1"))[0] ?? ""), { message: "the exam opened for its run" });
  await statusIs(/^Replay · Finished: Teacher said \[END_EXAM\]/, "the exam's replay");
  await openCrew(session, `${CREWS}/support-triage.yaml`, { ready: HOOK });
  await showsNoRun("the support triage after the exam's replay");
  await session.screenshot(`${OUT}/runside-01-another-crew-no-run.png`);
});

test("a run going on stays with its crew: it goes on while another crew is open, and shows again on its own", async () => {
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await chooseSimulate(session, "exam.yaml", { pace: "step" });
  await session.type(".run-input", "A slow exam");
  await session.click(RUN);
  await session.visible(".run-next");
  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await showsNoRun("the interview while the exam's run goes on");
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await statusIs(/^Running: Teacher is working/, "the exam's run shown again");
  await session.visible(".run-next");
  await session.click(STOP);
  await statusIs(/^Cancelled/, "the exam's run stopped");
});

test("Simulate typed by hand: the group's 3 s limit does not count the time the person takes to type", async () => {
  await openCrew(session, join(work, "panel.yaml"), { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  await chooseModel("Simulate (type each reply)");
  await session.type(".run-input", "Discuss the weather");
  await session.click(RUN);
  const reply = async (agent, text) => {
    const box = `.run-reply[data-agent="${agent}"] textarea`;
    await session.visible(`.run-reply[data-agent="${agent}"] label`);
    await session.type(box, text);
    await session.type(box, ENTER, { clear: false });
  };
  await reply("host", "What will the weather be tomorrow? [ASK]");
  await session.visible('.run-reply[data-agent="ana"] label');
  await session.visible('.run-reply[data-agent="bo"] label');
  // The person takes longer than the group's limit to type: on purpose, a wait
  // longer than the 3 s limit (the one fixed wait of this file).
  await new Promise((r) => setTimeout(r, 5000));
  assert.match(await status(), /^Running: Ana, Bo are working/, "the group still waits for its members' replies");
  await reply("ana", "Sunny in the morning.");
  await new Promise((r) => setTimeout(r, 4000));
  await reply("bo", "Rain after lunch.");
  await reply("host", "Thank you both. [DONE]");
  await statusIs(/^Finished: Host said \[DONE\]/, "the panel's end");
  const transcript = (await session.texts(".run-transcript")).join("\n");
  assert.match(transcript, /Sunny in the morning/);
  assert.match(transcript, /Rain after lunch/);
  assert.doesNotMatch(transcript, /ran out of time|did not finish/);
});

test("the handoff limit reads as the transfers a run may make", async () => {
  await openCrew(session, join(work, "pingpong.yaml"), { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseSimulate(session, "pingpong.yaml", { pace: "instant" });
  await session.type(".run-input", "Play");
  await session.click(RUN);
  // max_handoffs 3 allows 2 transfers: the third is refused.
  await statusIs(/^Stopped/, "the limit");
  assert.equal(await status(), "Stopped after 2 transfers, the most this crew allows");
  await session.waitFor(async () => (await runShown()).end === "Stopped after 2 transfers, the most this crew allows", { message: "the End node saying the limit" });
  const moves = await session.texts(".run-handoffs li");
  assert.equal(moves.length, 2, `two transfers: ${moves}`);
});

test("a scripted run can be watched: as a model would, step by step with Next; the pace is remembered per crew", async () => {
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await chooseSimulate(session, "exam.yaml");
  assert.deepEqual(await session.texts(".run-pace-choice"), ["As a model would", "Step by step", "At once"]);

  // As a model would: the teacher's reply comes word by word.
  await choosePace(session, "readable");
  await session.type(".run-input", "An exam, as a model would write it");
  await session.click(RUN);
  const written = () => session.execute(`return document.querySelector('.run-transcript .run-turn:last-child .run-text')?.textContent.length ?? 0`);
  let first = 0;
  await session.waitFor(async () => (first = await written()) > 0, { message: "the teacher's first words" });
  await session.waitFor(async () => (await written()) > first, { message: "more of the teacher's words, a moment later" });
  assert.match(await status(), /^Running/);
  await screenshots("02-run-in-progress");
  await statusIs(/^Finished: Teacher said \[END_EXAM\]/, "the readable exam's end");
  const moves = await session.texts(".run-handoffs li");
  // The tracker names the moves that are not signals: the group handing back, the end.
  assert.match(moves.join("\n"), /exam_round → Teacher\s*· then: the group is done and hands the work back/);
  assert.match(moves.at(-1), /Teacher → End\s*· said \[END_EXAM\], so the run is over/);
  await screenshots("03-run-finished");

  // Step by step: each turn waits for Next.
  await choosePace(session, "step");
  await session.type(".run-input", "An exam, one turn at a time");
  await session.click(RUN);
  await session.visible(".run-next");
  await session.waitFor(async () => /Teacher is next/.test((await session.texts(".run-step .run-note"))[0] ?? ""), { message: "Teacher next" });
  assert.equal(await session.execute(`return document.querySelectorAll('.run-transcript .run-turn .run-text').length === 0 || document.querySelector('.run-transcript .run-turn:last-child .run-text').textContent === ''`), true, "nothing written before Next");
  await screenshots("04-step-next");
  await session.click(".run-next");
  await session.waitFor(async () => /Student, Reporter are next|Reporter, Student are next/.test((await session.texts(".run-step .run-note"))[0] ?? ""), { message: "the group's members next" });
  assert.match((await session.texts(".run-transcript")).join("\n"), /Question 1: what is 1\/2 \+ 1\/4\?/);
  // Next until the end (each press lets one turn come; pressed when it can be).
  await session.waitFor(
    async () => {
      if (/^Finished/.test(await status())) return true;
      await session.execute(`const b = document.querySelector('.run-next'); if (b && !b.disabled) b.click();`);
      return false;
    },
    { timeout: 120_000, message: async () => `Next pressed to the end (it says ${JSON.stringify(await status())})` },
  );
  await statusIs(/^Finished: Teacher said \[END_EXAM\]/, "the stepped exam's end");

  // Remembered per crew: another crew starts at its own pace; the exam keeps "step".
  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await chooseSimulate(session, "interview.yaml");
  assert.equal(await session.execute(`return document.querySelector('.run-pace-choice[aria-checked="true"]').dataset.pace`), "readable");
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await chooseSimulate(session, "exam.yaml");
  assert.equal(await session.execute(`return document.querySelector('.run-pace-choice[aria-checked="true"]').dataset.pace`), "step");
});

test("the canvas keeps its room: the dock resizes within half the window and is remembered; problems fold into a badge", async () => {
  await openCrew(session, join(work, "warned.yaml"), { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name");
  // No run: the problems list is there, with its warning.
  await session.visible(".problems-panel .problem-plain");
  await chooseSimulate(session, "warned.yaml", { pace: "instant" });
  const sizes = () =>
    session.execute(`
      const box = (css) => document.querySelector(css)?.getBoundingClientRect() ?? null;
      return { window: innerHeight, canvas: box('.canvas')?.height ?? 0, dock: box('.run-dock')?.height ?? 0, badge: Boolean(document.querySelector('.problems-badge')), panel: Boolean(document.querySelector('.problems-panel')) };`);
  assert.ok((await sizes()).canvas >= 450, `the canvas keeps half the window with the dock open: ${JSON.stringify(await sizes())}`);
  await session.type(".run-input", "Say hello");
  await session.click(RUN);
  await statusIs(/^Finished/, "the warned crew's run");
  // While a run is shown the problems list is a badge over the canvas.
  await session.waitFor(async () => (await sizes()).badge && !(await sizes()).panel, { message: "the problems folded into a badge" });
  assert.match((await session.texts(".problems-badge-button"))[0], /1 warning/);

  // The dock's edge dragged far up: the canvas keeps half the window.
  await session.drag(".run-dock > .run-resize", { x: 0, y: -500 });
  let now = await sizes();
  assert.ok(now.canvas >= 449, `the canvas keeps half the window: ${JSON.stringify(now)}`);
  const tall = Math.round(now.dock);
  // Dragged down, then the window reloaded: the height and the fold are remembered.
  await session.drag(".run-dock > .run-resize", { x: 0, y: 120 });
  now = await sizes();
  assert.ok(now.dock < tall - 60, `the dock is lower after dragging its edge down: ${JSON.stringify(now)} (was ${tall})`);
  const chosen = Math.round(now.dock);
  await session.execute("window.__beforeReload = true; setTimeout(() => location.reload(), 0);");
  await session.waitFor(() => session.execute(`return !window.__beforeReload && Boolean(${HOOK})`), { message: "the reloaded page" });
  await openCrew(session, join(work, "warned.yaml"), { ready: HOOK });
  await session.visible('.run-dock-toggle[aria-expanded="true"]');
  await session.waitFor(async () => Math.abs((await sizes()).dock - chosen) <= 2, { message: async () => `the dock ${chosen} px tall again (it is ${JSON.stringify(await sizes())})` });
  await session.click('.run-dock-toggle[aria-expanded="true"]');
  await session.execute("window.__beforeReload = true; setTimeout(() => location.reload(), 0);");
  await session.waitFor(() => session.execute(`return !window.__beforeReload && Boolean(${HOOK})`), { message: "the reloaded page" });
  await openCrew(session, join(work, "warned.yaml"), { ready: HOOK });
  await session.visible('.run-dock-toggle[aria-expanded="false"]');
  // (The next tests start with the panels as a new window has them.)
  await forgetLayout(session);
});

test("at 200 % zoom the transcript has room and the minimap does not cover the graph", async () => {
  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseSimulate(session, "interview.yaml", { pace: "instant" });
  await session.type(".run-input", "Interview me about colours");
  await session.click(RUN);
  await statusIs(/^Paused/, "the interview's pause");
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await drawn();
    await drawn();
    const room = await session.execute(`
      const r = (el) => el?.getBoundingClientRect();
      const transcript = r(document.querySelector('.run-transcript'));
      const minimap = document.querySelector('.react-flow__minimap');
      const shown = minimap && getComputedStyle(minimap).display !== 'none' ? r(minimap) : null;
      const nodes = [...document.querySelectorAll('.react-flow__node')].map(r);
      const covered = shown ? nodes.filter((n) => n.left < shown.right && n.right > shown.left && n.top < shown.bottom && n.bottom > shown.top).length : 0;
      const sidebar = r(document.querySelector('.sidebar'));
      return { width: transcript?.width ?? 0, height: transcript?.height ?? 0, minimap: Boolean(shown), covered, sidebar: sidebar?.width ?? 0 };`);
    assert.ok(room.width >= 250 && room.height >= 80, `the transcript has room at 200 %: ${JSON.stringify(room)}`);
    assert.equal(room.covered, 0, `no card under the minimap: ${JSON.stringify(room)}`);
    // The sidebar folds to a rail in a window this narrow (its ☰ unfolds it).
    assert.ok(room.sidebar <= 60, `the sidebar folded to a rail: ${JSON.stringify(room)}`);
    await session.screenshot(`${OUT}/runside-05-paused-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    // Laid out at 100 % again before a click is computed against the page.
    await drawn();
  }
  // Stop the typed run if it still waits (a Stop already disabled is not waited for).
  const stoppable = await session.execute(`return !document.querySelector(${JSON.stringify(STOP)})?.disabled`);
  if (stoppable) await session.click(STOP);
});

test("a line signal's chip asks for its payload; the tracker shows it", async () => {
  await openCrew(session, `${CREWS}/code-review.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  await chooseModel("Simulate (type each reply)");
  await session.type(".run-input", "Add a login form (task T-42)");
  await session.click(RUN);
  const box = '.run-reply[data-agent="developer"] textarea';
  await session.visible('.run-reply[data-agent="developer"] label');
  const chips = await session.texts('.run-reply[data-agent="developer"] .run-chip');
  assert.ok(chips.includes("READY_FOR_REVIEW: …"), `a chip for the line signal: ${JSON.stringify(chips)}`);
  assert.ok(chips.includes("SEEKING_CLARIFICATION"), `a chip for the line without a payload: ${JSON.stringify(chips)}`);
  await session.type(box, "Added the login form.");
  await session.click('.run-reply[data-agent="developer"] .run-chip[data-signal="review-ready"]');
  await session.visible(".run-payload label");
  assert.equal((await session.texts(".run-payload label"))[0], "What comes after READY_FOR_REVIEW:?");
  await session.type(".run-payload input", "T-42");
  await session.click('.run-payload button[type="submit"]');
  await session.waitFor(async () => (await session.execute(`return document.querySelector(arguments[0]).value`, [box])) === "Added the login form.\nREADY_FOR_REVIEW: T-42", {
    message: async () => `the line added to the reply (it reads ${JSON.stringify(await session.execute(`return document.querySelector(arguments[0]).value`, [box]))})`,
  });
  await session.screenshot(`${OUT}/runside-06-line-signal-chip.png`);
  await session.type(box, ENTER, { clear: false });
  await session.visible('.run-reply[data-agent="critic"] label');
  await session.waitFor(async () => /Developer → Critic\s*· because the reply said review-ready: T-42 \(by pattern\)/.test((await session.texts(".run-handoffs li")).join("\n")), {
    message: async () => `the payload on the tracker line (lines: ${JSON.stringify(await session.texts(".run-handoffs li"))})`,
  });
  await session.click(STOP);
  await statusIs(/^Cancelled/, "the review stopped");
});

test("a failed run says what happened and what to try, the details a click away; a model that failed its check is named before the run", async () => {
  // A model at an address where nothing listens, added in Settings.
  await session.click(".sidebar-bottom .sidebar-item");
  await session.visible(".settings-model strong");
  await session.type('.settings-add input[name="model-name"]', "nowhere");
  await session.type('.settings-add input[name="provider-model"]', "some-model");
  await session.type('.settings-add input[name="base-url"]', "http://127.0.0.1:9/v1");
  await session.execute(`document.querySelector('.settings-add button[type="submit"]').scrollIntoView({ block: "nearest" })`);
  await session.click('.settings-add button[type="submit"]');
  await session.execute(`document.querySelector(".settings-models").scrollIntoView({ block: "start" })`);
  await session.waitFor(async () => (await session.texts(".settings-model strong")).includes("nowhere"), { message: "the new model in the list" });
  await closeSettings();

  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await chooseModel("nowhere");
  await session.type(".run-input", "Interview me");
  await session.click(RUN);
  await statusIs(/^Failed/, "the failure");
  // The first line: what happened and what to try.
  assert.equal(
    await status(),
    "Failed at Host: nothing answers at 127.0.0.1:9 — is the model server running? Start the model server, or choose another model in the Model list, then run again.",
  );
  await session.visible(".run-failure");
  assert.equal((await session.find(".run-failure-details")).length, 0, "the details wait for a click");
  await session.click(".run-failure .run-link");
  await session.visible(".run-failure-details");
  assert.match((await session.texts(".run-failure-details"))[0], /^agent 'host': openai at http:\/\/127\.0\.0\.1:9\/v1: nothing answers at 127\.0\.0\.1:9 .*Connection refused/);
  await screenshots("07-failed-run");

  // Checked in Settings (it does not answer): the run panel names it before the next run.
  await session.click(".sidebar-bottom .sidebar-item");
  await session.waitFor(
    () =>
      session.execute(`const b = [...document.querySelectorAll('.settings-model[data-model="nowhere"] button')].find((b) => b.textContent === 'Check' && !b.disabled); if (b) b.click(); return Boolean(b);`),
    { message: "Check on the nowhere model" },
  );
  await session.waitFor(async () => /did not answer|nothing answers/i.test((await session.texts('.settings-model[data-model="nowhere"]'))[0] ?? ""), {
    timeout: 120_000,
    message: "the check saying it does not answer",
  });
  await closeSettings();
  await chooseModel("nowhere");
  await session.waitFor(() => session.execute(`const el = document.querySelector('.run-silent'); el?.scrollIntoView({ block: "nearest" }); return Boolean(el);`), { message: "the warning about the model" });
  await session.visible(".run-silent p");
  assert.match((await session.texts(".run-silent p"))[0], /^nowhere did not answer when it was last checked: nothing answers at 127\.0\.0\.1:9/);
  await session.screenshot(`${OUT}/runside-08-model-did-not-answer.png`);
  // The way on: Simulate instead.
  await session.click(".run-silent-ways .run-button:nth-child(2)");
  await session.waitFor(async () => (await session.find(".run-silent")).length === 0, { message: "the warning gone in Simulate" });
  assert.match(await session.execute(`const s = document.querySelector(".run-select"); return s.options[s.selectedIndex].textContent`), /^Simulate \(replies from a script\)/);

  // The model removed again (the next test files start without it).
  await session.click(".sidebar-bottom .sidebar-item");
  await session.waitFor(
    () =>
      session.execute(`const b = [...document.querySelectorAll('.settings-model[data-model="nowhere"] button')].find((b) => b.textContent === 'Remove' && !b.disabled); if (b) b.click(); return Boolean(b);`),
    { message: "Remove on the nowhere model" },
  );
  await session.waitFor(async () => !(await session.texts(".settings-model strong")).includes("nowhere"), { message: "nowhere removed" });
  await closeSettings();
});

test("Try one agent: a chat with the host alone, in Simulate; where a run would go after its reply", async () => {
  await openCrew(session, `${CREWS}/interview.yaml`, { ready: HOOK });
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  // Opened by the event any part of the window may send (the canvas's cards do).
  await session.execute(`window.dispatchEvent(new CustomEvent("crewgraph:try-agent", { detail: { agent: "host" } }))`);
  await session.visible(".try-panel h2");
  assert.equal((await session.texts(".try-panel h2"))[0], "Try Host alone");
  await session.execute(
    `const select = document.querySelectorAll('.try-choices select')[1];
     const option = [...select.options].find((o) => o.textContent.startsWith('Simulate'));
     Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, option.value);
     select.dispatchEvent(new Event('change', { bubbles: true }));`,
  );
  await session.type(".try-write textarea", "Hello, I like blue.");
  await session.type(".try-write textarea", ENTER, { clear: false });
  await session.waitFor(async () => /What does Host say\?/.test((await session.texts(".try-write .run-label"))[0] ?? ""), { message: "the host's turn in the chat" });
  await session.type(".try-write textarea", "Blue it is, passing it on.");
  await session.click('.try-write .run-chip[data-signal="[SUMMARY]"]');
  await session.type(".try-write textarea", ENTER, { clear: false });
  await session.visible(".try-agent .try-next");
  assert.match((await session.texts(".try-agent .run-text"))[0], /Blue it is, passing it on\. \[SUMMARY\]/);
  assert.match((await session.texts(".try-agent .try-next"))[0], /^Then: .*Writer/);
  await screenshots("09-try-agent");
  // From the run panel too, and closed with Esc.
  await session.click(".try-close");
  await unfoldRunPanel(session);
  await session.click(".run-dock-try");
  await session.visible(".try-panel h2");
  await session.keys("\uE00C");
  await session.waitFor(async () => (await session.find(".try-panel")).length === 0, { message: "the chat closed with Esc" });
});

test("the sidebar's runs are named by their input, per crew, and searchable", async () => {
  await openCrew(session, `${CREWS}/exam.yaml`, { ready: HOOK });
  await session.execute(`document.querySelector('.runs-which button:first-child')?.scrollIntoView({ block: "start" })`);
  await session.click(".runs-which button:first-child");
  await session.waitFor(async () => (await session.execute(`return document.querySelectorAll('.runs-list .sidebar-run-input').length`)) >= 3, { message: "the exam's runs" });
  const inputs = await session.execute(`return [...document.querySelectorAll('.runs-list .sidebar-run-input')].map((el) => el.textContent)`);
  assert.ok(inputs.includes("Give me a short exam on fractions"), `runs named by their input: ${JSON.stringify(inputs)}`);
  assert.ok(!inputs.includes("Interview me about colours"), `only the exam's runs: ${JSON.stringify(inputs)}`);
  await session.type(".runs-search", "one turn");
  const listed = () => session.execute(`return [...document.querySelectorAll('.runs-list .sidebar-run-input')].map((el) => el.textContent)`);
  await session.waitFor(async () => JSON.stringify(await listed()) === JSON.stringify(["An exam, one turn at a time"]), {
    message: async () => `the search finding one run (it shows ${JSON.stringify(await listed())})`,
  });
  await session.execute(`document.querySelector('.runs-list li')?.scrollIntoView({ block: "center" })`);
  // Not cut off: the whole input shows.
  const cut = await session.execute(`const el = document.querySelector('.runs-list .sidebar-run-input'); return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;`);
  assert.equal(cut, false, "the run's input is not cut off");
  await session.screenshot(`${OUT}/runside-10-runs-list.png`);
});
