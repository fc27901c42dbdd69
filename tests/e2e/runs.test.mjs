// End-to-end test of runs in the real window (run by run-window.sh): a crew run in
// Simulate mode with the script that comes with it — the highlight moves from agent
// to agent in order, the tracker says why each handoff happened, a pause asks the
// person and resumes with the answer; Stop ends a run `cancelled`; a stored run is
// replayed from the runs list; a reply whose signal is misspelt is said on the card
// and in the tracker, and accepting the spelling is an edit that is saved and undone;
// what an agent saw (its instructions, what its context window left out) opens from
// the transcript, the tracker and its card; a finished run forked at the student's
// reply (another reply and signal, Simulate with what comes after) runs to its end,
// is listed under the first run, and the canvas marks where the two part.
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
  // (The graph shows an update a frame after the run dock: store.ts, `graph`.)
  await session.waitFor(async () => (await session.find(".wait-node.run-waiting, .wait-node.run-active")).length === 1, {
    message: "the Wait node showing the crew waiting",
  });
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

/** Screenshots of "What … saw": at 1440×900 and at 200 % zoom, `selector` scrolled
 * into view in the dialog in each. */
async function seenScreenshots(name, selector) {
  const show = () => session.execute(`document.querySelector(arguments[0])?.scrollIntoView({ block: "nearest" });`, [selector]);
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

/** What the open "What … saw" says: its title, the turn, the token words, and the rest. */
const seen = () =>
  session.execute(`
    const d = document.querySelector(".seen-dialog");
    if (!d) return null;
    const text = (css) => d.querySelector(css)?.textContent ?? null;
    const cut = d.querySelector(".seen-cut details");
    return {
      title: text("h2"), sub: text(".seen-sub"), tokens: text(".seen-tokens-words"), cutWords: text(".seen-cut-words"),
      signals: text(".seen-prompt-signals"), own: text(".seen-prompt-own"), cutOpen: cut ? cut.open : null,
      cutSummary: cut ? cut.querySelector("summary").textContent : null,
      bar: [...d.querySelectorAll(".seen-bar-part")].map((p) => ({ kind: p.className.replace("seen-bar-part seen-part-", ""), width: p.getBoundingClientRect().width, image: getComputedStyle(p).backgroundImage })),
      authors: [...d.querySelectorAll(".seen-call > .seen-messages > .seen-message .seen-author")].map((a) => a.textContent),
      error: text(".seen-error"),
    };`);

test("what the tutor saw: its instructions with the signal paragraph and what its small context window left out, from the transcript, the tracker and the cards", async () => {
  const crew = join(work, "tutoring.yaml");
  await copyFile(new URL("./fixtures/seen.yaml", import.meta.url), crew);
  await mkdir(join(work, "scripts"), { recursive: true });
  await copyFile(new URL("./fixtures/seen-script.yaml", import.meta.url), join(work, "scripts", "tutoring.yaml"));
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await openCrew(session, crew);
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await chooseSimulate(session, "tutoring.yaml", { pace: "instant" });
  await session.type(".run-input", "Teach me about the solar system");
  await session.click(RUN);
  await statusIs(/^Finished/, "the end of the lesson");
  assert.equal(await status(), "Finished: Tutor said [DONE]");

  // The tutor's last turn, from its link in the transcript.
  const turns = await session.execute(`return [...document.querySelectorAll(arguments[0])].map((t) => t.dataset.turn)`, [`.run-transcript .run-turn[aria-label="Tutor's turn"]`]);
  assert.equal(turns.length, 4, `the tutor's four turns: ${turns}`);
  const last = `.run-transcript .run-turn[data-turn="${turns.at(-1)}"] .seen-open`;
  assert.equal((await session.texts(last))[0], "What Tutor saw");
  await seenScreenshots("27-seen-links", last);
  await session.click(last);
  await session.visible(".seen-dialog h2");
  const told = await session.waitFor(async () => {
    const now = await seen();
    return now && (now.tokens || now.error) ? now : null;
  }, { message: async () => `what the tutor saw, or an error (it shows: ${JSON.stringify(await seen())})` });
  assert.equal(told.error, null, `no error: ${told.error}`);
  assert.equal(told.title, "What Tutor saw");
  assert.match(told.sub, /^Its turn at step 7 · /);
  // Simulate: no model, so no window known; the bar is what it was sent and what was cut.
  assert.match(told.tokens, /^\d+ tokens sent to its model \(how many its model can take is not known\)$/);
  assert.match(told.own, /^You are a patient tutor\./);
  assert.match(told.signals, /^Added by Crewgraph from its arrows\s*When you have done your part, end your reply with one of these signals/);
  assert.match(told.signals, /- \[ASK\]: asks the learner a question \(hands the work to Learner\)/);
  assert.match(told.signals, /- \[DONE\]: the lesson is over/);
  // Its context_budget of 300 left the first question and answer out: said, greyed in the bar, folded in the list.
  assert.match(told.cutWords, /^3 earlier messages were left out \(about \d+ tokens\)$/);
  assert.deepEqual(told.bar.map((p) => p.kind), ["instructions", "messages", "cut"]);
  assert.ok(told.bar.every((p) => p.width > 0), `each part of the bar drawn: ${JSON.stringify(told.bar)}`);
  assert.match(told.bar[2].image, /repeating-linear-gradient/, "the cut part hatched");
  assert.equal(told.cutOpen, false, "the cut messages folded away");
  assert.match(told.cutSummary, /^Left out by the context window · 3 earlier messages were left out/);
  assert.deepEqual(told.authors, ["You asked", "Learner", "Tutor", "Learner"]);
  await seenScreenshots("28-seen-tutor", ".seen-tokens");

  // Unfolded: the cut messages, greyed.
  await session.click(".seen-cut summary");
  const greyed = await session.waitFor(() =>
    session.execute(`const m = [...document.querySelectorAll(".seen-cut-messages .seen-message")]; return m.length && m.every((e) => e.getBoundingClientRect().height > 0) ? m.map((e) => [e.querySelector(".seen-author").textContent, getComputedStyle(e).opacity]) : null;`),
  { message: "the cut messages shown" });
  assert.deepEqual(greyed.map(([who]) => who), ["Tutor", "Learner", "Tutor"]);
  assert.ok(greyed.every(([, opacity]) => Number(opacity) < 1), `greyed: ${JSON.stringify(greyed)}`);
  await seenScreenshots("29-seen-cut-open", ".seen-cut");

  // Escape closes it; the learner's card opens its latest turn (no budget: nothing cut).
  await session.keys("\uE00C");
  await session.waitFor(async () => (await session.find(".seen-dialog")).length === 0, { message: "the view closed" });
  // (A double click: one click selects the card to edit it.)
  await session.execute(`document.querySelector('.agent-card[data-agent="learner"] .agent-name').dispatchEvent(new MouseEvent("dblclick", { bubbles: true }))`);
  await session.visible(".seen-dialog h2");
  const learner = await session.waitFor(async () => {
    const now = await seen();
    return now && (now.tokens || now.error) ? now : null;
  }, { message: "what the learner saw" });
  assert.equal(learner.error, null, `no error: ${learner.error}`);
  assert.equal(learner.title, "What Learner saw");
  assert.match(learner.sub, /^Its turn at step 6 · /);
  assert.equal(learner.cutWords, "Its context window left nothing out.");
  assert.match(learner.signals, /\[ANSWER\]: answers the tutor/);
  assert.deepEqual(learner.bar.map((p) => p.kind), ["instructions", "messages"]);
  await seenScreenshots("30-seen-learner-card", ".seen-said");

  // Earlier turn: the tutor's at step 5.
  await session.click(".seen-nav .run-button:nth-child(1)");
  await session.waitFor(async () => /^Its turn at step 5/.test((await seen())?.sub ?? ""), { message: "the turn before" });
  await session.keys("\uE00C");
  await session.waitFor(async () => (await session.find(".seen-dialog")).length === 0, { message: "the view closed" });

  // A tracker line's eye: what the tutor saw before its first question (the tracker
  // follows its newest lines: scrolled back to its first, as a person would).
  await session.execute(`document.querySelector(".run-tracker").scrollTop = 0`);
  await session.waitFor(() => session.execute(`return document.querySelector(".run-tracker").scrollTop === 0`), { message: "the tracker at its first line" });
  await session.click(".run-handoffs .seen-open-line");
  await session.waitFor(async () => /^Its turn at step 1/.test((await seen())?.sub ?? ""), { message: "the tutor's first turn from the tracker" });
  assert.equal((await seen()).title, "What Tutor saw");
  await session.keys("\uE00C");
  await session.waitFor(async () => (await session.find(".seen-dialog")).length === 0, { message: "the view closed" });
});

/** What the fork dialog shows. */
const forkDialog = () =>
  session.execute(`
    const d = document.querySelector(".fork-dialog");
    if (!d) return null;
    return {
      title: d.querySelector("h2")?.textContent ?? null,
      reply: d.querySelector(".fork-reply")?.value ?? null,
      chips: [...d.querySelectorAll(".run-chip")].map((c) => c.textContent),
      model: d.querySelector(".run-select")?.selectedOptions[0]?.textContent ?? null,
      script: d.querySelector(".run-script-name")?.textContent ?? null,
      error: d.querySelector(".fork-refusal")?.textContent ?? null,
    };`);

test("a run forked at the student's reply: another reply and Simulate with what comes after; the new run runs to the end, listed under the first, where it parts highlighted on the canvas", async () => {
  const crew = join(work, "office.yaml");
  await copyFile(new URL("./fixtures/fork.yaml", import.meta.url), crew);
  await mkdir(join(work, "scripts"), { recursive: true });
  const script = join(work, "scripts", "office.yaml");
  await copyFile(new URL("./fixtures/fork-script.yaml", import.meta.url), script);
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await openCrew(session, crew);
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  await chooseSimulate(session, "office.yaml", { pace: "instant" });
  await session.type(".run-input", "Help me with fractions");
  await session.click(RUN);
  await statusIs(/^Finished/, "the first run's end");
  assert.equal(await status(), "Finished: Teacher said [ANSWERED]");
  const first = await session.execute("return window.crewgraph.runId()");

  // The fork's script holds only what comes after the student's reply (the crew's
  // script, as the dialog offers it, now holds the librarian's reply alone).
  await copyFile(new URL("./fixtures/fork-after-script.yaml", import.meta.url), script);

  // The student's turn offers it; a keyboard opens it (focus, Enter).
  const studentFork = `.run-transcript .run-turn[aria-label="Student's turn"] .fork-open`;
  assert.equal((await session.texts(studentFork))[0], "Try another reply");
  assert.equal((await session.find(".run-transcript .fork-open")).length, 3, "each of the three turns offers it");
  await seenScreenshots("31-fork-transcript", studentFork);
  await session.execute(`document.querySelector(arguments[0]).focus()`, [studentFork]);
  await session.keys("\uE007");
  await session.visible(".fork-dialog h2");
  let shown = await session.waitFor(async () => {
    const now = await forkDialog();
    return now?.script === "office.yaml" ? now : null;
  }, { message: async () => `the dialog with the crew's script (it shows: ${JSON.stringify(await forkDialog())})` });
  assert.equal(shown.title, "Try another reply for Student");
  assert.equal(shown.reply, "What is 1/2 + 1/4? [QUESTION]");
  assert.deepEqual(shown.chips, ["[QUESTION]", "[BOOK]"]);
  assert.equal(shown.model, "Simulate (replies from a script)");
  assert.equal(await session.execute(`return document.activeElement?.classList.contains("fork-reply")`), true, "the reply has the focus");

  // Another of its signals, in place of the one it ended with; then the words edited.
  await session.click('.fork-dialog .run-chip[data-signal="[BOOK]"]');
  await session.waitFor(async () => (await forkDialog())?.reply === "What is 1/2 + 1/4? [BOOK]", { message: "the signal put at the end" });
  await session.execute(
    `const box = document.querySelector(".fork-dialog .fork-reply");
     Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(box, arguments[0]);
     box.dispatchEvent(new Event("input", { bubbles: true }));`,
    ["Can I borrow a book on fractions? [BOOK]"],
  );
  await session.waitFor(async () => (await forkDialog())?.reply === "Can I borrow a book on fractions? [BOOK]", { message: "the reply edited" });
  await seenScreenshots("32-fork-dialog", ".fork-dialog .dialog-actions");

  // Run from here: the new run is shown and runs to the end.
  await session.click(".fork-dialog .dialog-actions .primary");
  await session.waitFor(async () => (await session.find(".fork-dialog")).length === 0, { message: "the dialog closed" });
  await session.waitFor(async () => {
    const now = await session.execute("return window.crewgraph.runId()");
    return now && now !== first;
  }, { message: "the new run shown" });
  await statusIs(/^Finished: Librarian/, "the fork's end");
  assert.equal(await status(), "Finished: Librarian said [FOUND]");
  const fork = await session.execute("return window.crewgraph.runId()");
  // Its transcript: the turns before taken from the first run, the new reply, the librarian's.
  const said = await session.execute(`return [...document.querySelectorAll(".run-transcript .run-turn")].map((t) => t.querySelector(".run-text")?.textContent)`);
  assert.deepEqual(said, [
    "Hello. What would you like to know today? [ASK]",
    "Can I borrow a book on fractions? [BOOK]",
    "Here is Fractions for Everyone; chapter 2 adds halves and quarters. [FOUND]",
  ]);

  // The sidebar: the fork right under the first run, indented, saying where it was forked.
  const listed = await session.waitFor(async () => {
    const rows = await session.execute(`return [...document.querySelectorAll(".runs-list li")].map((li) => ({ run: li.querySelector("[data-run]")?.dataset.run, fork: li.classList.contains("run-fork"), words: li.querySelector(".sidebar-run-fork")?.textContent ?? null, indent: getComputedStyle(li).marginLeft }))`);
    const at = rows.findIndex((r) => r.run === fork);
    // (The words say "forked from another run" until the first run's reply is read.)
    return at > 0 && rows[at].words?.startsWith("forked at") ? { rows, at } : null;
  }, { message: "the fork listed with its words" });
  assert.equal(listed.rows[listed.at - 1].run, first, "right under the first run");
  assert.equal(listed.rows[listed.at].fork, true);
  assert.equal(listed.rows[listed.at].words, "forked at Student's reply");
  assert.notEqual(listed.rows[listed.at].indent, "0px", "indented");
  assert.equal(listed.rows[listed.at - 1].words, null, "the first run listed as before");

  // The canvas: the fork's arrow highlighted, the first run's there faint and dashed, and the legend.
  const canvas = await session.waitFor(async () => {
    const now = await session.execute(`
      const pill = (cls) => [...document.querySelectorAll(".edge-pill." + cls)].map((p) => p.textContent);
      const legend = document.querySelector(".fork-legend");
      return { taken: pill("fork-taken"), parted: pill("fork-parted"), legend: legend?.textContent ?? null,
               dashed: [...document.querySelectorAll(".react-flow__edge-path.fork-parted")].map((p) => getComputedStyle(p).strokeDasharray),
               wide: [...document.querySelectorAll(".react-flow__edge-path.fork-taken")].map((p) => getComputedStyle(p).strokeWidth) };`);
    return now.taken.length && now.legend ? now : null;
  }, { message: "where the runs part, on the canvas" });
  assert.equal(canvas.taken.length, 1);
  assert.match(canvas.taken[0], /\[BOOK\]/);
  assert.equal(canvas.parted.length, 1);
  assert.match(canvas.parted[0], /\[QUESTION\]/);
  assert.ok(canvas.dashed.every((d) => d !== "none" && d !== ""), `the first run's arrow dashed: ${canvas.dashed}`);
  assert.deepEqual(canvas.wide, ["3.5px"]);
  assert.match(canvas.legend, /^Where this run parts from the run of .+, after Student's reply/);
  assert.match(canvas.legend, /this run: Student → Librarian/);
  assert.match(canvas.legend, /the first run: Student → Teacher/);
  await seenScreenshots("33-fork-canvas", ".fork-legend");
  await seenScreenshots("34-fork-sidebar", `.runs-list [data-run="${fork}"]`);
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
