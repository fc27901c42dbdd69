// End-to-end test of the graph editor in the real window (run by run-window.sh after
// window.test.mjs): build a three-agent crew on an empty canvas with the agent form
// and edge drawing — a parallel group and a termination edge among them — watch a
// problem appear and go away, save, reopen, and compare the YAML with the expected
// file; its history: a second save, the two revisions compared on the canvas, the
// first restored and the restoring undone. Then the frame rate of panning and
// zooming a 1,000-agent crew.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { openCrew } from "./app.mjs";
import { canvasFigure } from "./figures.mjs";
import { CANVAS_STATE, MEASURE_CANVAS, ZOOM_TO_CARDS } from "./in-page.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
const BIG = process.env.E2E_BIG_CREW;
const CONTROL = "\uE009";
const SHIFT = "\uE008";
let session;

before(async () => {
  assert.ok(APP && CREWS && BIG, "CREWGRAPH_APP, E2E_CREWS and E2E_BIG_CREW must be set (run-window.sh)");
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "editor-";
});

after(async () => {
  await session?.end();
});

/** Waits until the canvas is at rest: no glide of the view under way, and the view
 * and every card where they were a moment ago (a fit, a layout or a zoom done). */
const canvasAtRest = (why) => session.waitForStable(() => session.execute(CANVAS_STATE), { message: `the canvas to come to rest ${why}` });

/** Clears the selection (Escape), fits the whole crew in view (the toolbar's Fit)
 * and waits for the glide to end. */
async function fitAll() {
  await session.keys("\uE00C");
  await session.click('.toolbar button[title^="Fit the whole crew"]');
  await canvasAtRest("after fitting the crew in view");
}

/** The names of the agents the editor has selected (its inspector shows them). */
const inspected = () => session.texts(".ins h2");

/** The input or textarea whose label starts with `label`, inside `scope`. */
async function field(scope, label) {
  return session.waitFor(
    () =>
      session.execute(
        `const [scope, label] = arguments;
         const found = [...document.querySelectorAll(scope + " label")].find((l) => l.textContent.trim().startsWith(label));
         return found ? (found.control ?? document.getElementById(found.htmlFor)) : null;`,
        [scope, label],
      ),
    { message: `the field '${label}'` },
  );
}

async function typeInto(element, text) {
  const id = Object.values(element)[0];
  await session.call("POST", `/element/${id}/clear`, {});
  await session.call("POST", `/element/${id}/value`, { text });
}

async function addAgent(id, name, role) {
  await session.click(".toolbar .primary");
  await session.visible('[role="dialog"] h2');
  await typeInto(await field('[role="dialog"]', "Name"), name);
  await typeInto(await field('[role="dialog"]', "Id"), id);
  await typeInto(await field('[role="dialog"]', "Role"), role);
  await session.click('[role="dialog"] button[type="submit"]');
  await session.waitFor(async () => (await session.texts(".react-flow__node-agent .agent-name")).includes(name), { message: `${name}'s card` });
  await session.waitFor(async () => (await session.find('[role="dialog"]')).length === 0, { message: "the new-agent dialog to close" });
}

/** Draws an edge from an agent card's out-handle to a node and answers the dialog. */
async function connect(fromAgent, toNode, signal, where = "") {
  // Not while React Flow is still placing or gliding the cards: the drag's ends are
  // taken where the cards are when it starts.
  await canvasAtRest(`before drawing ${signal}`);
  await session.drag(`.react-flow__node[data-id="agent:${fromAgent}"] .react-flow__handle.source`, `.react-flow__node[data-id="${toNode}"] ${where}`.trim());
  await session.visible(".connect-dialog h2");
  await session.type('.connect-dialog input[name="signal"]', signal);
  // (The submit button is enabled once the signal checks out; click waits for that.)
  await session.click('.connect-dialog button[type="submit"]');
  await session.waitFor(async () => (await session.find(".connect-dialog")).length === 0, { message: "the connect dialog to close" });
}

const problems = () => session.texts(".problem .problem-plain");
/** Every edge pill's text, seen or covered (a pill may sit under a card until Tidy up). */
const pills = () => session.execute(`return [...document.querySelectorAll('.edge-pill')].map((p) => p.textContent)`);

test("a crew is built on an empty canvas, checked live, saved and reopened as the expected YAML", async () => {
  const lab = `${CREWS}/lab.yaml`;
  await openCrew(session, lab);
  await session.visible(".canvas-hint");
  await session.screenshot(`${OUT}/10-editor-empty.png`);

  await addAgent("teacher", "Teacher", "Asks one question at a time");
  // An agent with no way to finish or hand off: the engine says so, live, on its card
  // and in the list; the problem goes away once the teacher can finish (below).
  await session.waitFor(async () => (await problems()).join("\n").match(/teacher has no way to finish/), { message: "the no-way-out problem" });
  assert.deepEqual(await session.execute(`return [...document.querySelectorAll('.agent-card.has-warning .agent-name')].map((n) => n.textContent)`), ["Teacher"]);
  await session.screenshot(`${OUT}/11-editor-problem.png`);
  await addAgent("student", "Student", "Answers");
  await addAgent("reporter", "Reporter", "Keeps score");

  // Student and reporter side by side: select both, make a group. Each click only
  // once the one before has been taken in: the student alone selected (in the
  // editor's own state, which the inspector shows) before the reporter is added.
  await fitAll();
  await session.click('.react-flow__node[data-id="agent:student"]');
  await session.waitFor(async () => (await inspected()).includes("Student"), { message: "the student selected, in the inspector" });
  await session.clickWith('.react-flow__node[data-id="agent:reporter"] .agent-name', CONTROL);
  await session.waitFor(async () => (await session.find(".react-flow__node.selected")).length === 2 && (await session.texts(".ins-panel .ins-text")).includes("2 agents"), {
    message: async () => `two selected (selected: ${JSON.stringify(await session.execute(`return [...document.querySelectorAll('.react-flow__node.selected')].map((n) => n.getAttribute('data-id'))`))}; the inspector: ${JSON.stringify(await session.texts(".ins h2, .ins-panel .ins-text"))})`,
  });
  await session.click('.toolbar button[title^="Make a parallel group"]');
  await session.waitFor(async () => (await session.find(".react-flow__node-group")).length === 1, { message: "the group frame" });
  await fitAll();
  await session.waitFor(async () => JSON.stringify(await session.texts(".group-name")) === '["group_1"]', {
    message: async () => `the group's name on its frame (visible: ${JSON.stringify(await session.texts(".group-name"))})`,
  });
  await session.screenshot(`${OUT}/12-editor-grouped.png`);

  // The teacher's [QUESTION] goes to the group; [END_EXAM] into the End node finishes the run.
  await connect("teacher", "group:group_1", "[QUESTION]", ".group-header"); // the frame, not a card inside it
  await session.waitFor(async () => (await pills()).some((p) => p.includes("[QUESTION]")), { message: "the parallel edge's pill" });
  await connect("teacher", "end", "[END_EXAM]");
  await session.waitFor(async () => (await pills()).some((p) => p.includes("[END_EXAM]")), { message: "the terminate edge's pill" });
  // The engine's verdict on the finished crew (not one on the way to it): no check
  // under way, no problems, ready to run.
  await session.waitFor(
    async () =>
      (await session.find(".crew-status.checking")).length === 0 &&
      (await problems()).filter((p) => p).length === 0 &&
      /Ready to run/.test((await session.texts(".crew-status"))[0] ?? ""),
    { message: async () => `the finished crew checked with no problems (problems: ${JSON.stringify(await problems())}; status: ${JSON.stringify(await session.texts(".crew-status"))})` },
  );
  await session.screenshot(`${OUT}/12-editor-built.png`);

  // Save (Ctrl+S): the unsaved dot goes, the file holds exactly the expected YAML.
  assert.equal((await session.find(".dirty-dot")).length, 1, "unsaved changes are marked");
  await session.keys(CONTROL, "s");
  await session.waitFor(async () => (await session.find(".dirty-dot")).length === 0, { message: "the save (the unsaved dot to go)" });
  const saved = await readFile(lab, "utf8");
  await writeFile(`${OUT}/lab-saved.yaml`, saved);
  assert.equal(saved, await readFile(new URL("./fixtures/lab-expected.yaml", import.meta.url), "utf8"));
  const teacherAt = await cardPosition("teacher");

  // Back to the start, open it again: the same crew, the cards where they were.
  await session.click(".brand");
  await session.visible(".crew-card");
  await openCrew(session, lab);
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  await canvasAtRest("after reopening the crew");
  await session.screenshot(`${OUT}/13-editor-reopened.png`);
  assert.deepEqual((await session.texts(".react-flow__node-agent .agent-name")).sort(), ["Reporter", "Student", "Teacher"]);
  assert.deepEqual(await session.texts(".group-name"), ["group_1"]);
  assert.deepEqual(await cardPosition("teacher"), teacherAt, "the teacher's card is where it was saved");
});

test("undo and redo walk back and forth through edits, and delete takes an agent's routes with it", async () => {
  const names = () => session.texts(".react-flow__node-agent .agent-name");
  const unsaved = async () => (await session.find(".dirty-dot")).length;
  // Delete acts on what the editor has selected, and only once the engine's verdict
  // on the crew is in (it waits for a check under way): both first.
  await session.click('.react-flow__node[data-id="agent:reporter"]');
  await session.waitFor(async () => (await inspected()).includes("Reporter") && (await session.find(".crew-status.checking")).length === 0, {
    message: "the reporter selected (in the inspector) and the crew checked",
  });
  await session.keys("\uE017"); // Delete
  await session.waitFor(async () => !(await names()).includes("Reporter"), { message: "the reporter to go" });
  assert.equal(await unsaved(), 1, "a deletion is an unsaved change");
  await session.keys(CONTROL, "z");
  await session.waitFor(async () => (await names()).includes("Reporter"), { message: "the reporter to come back (undo)" });
  await session.keys(CONTROL, SHIFT, "z");
  await session.waitFor(async () => !(await names()).includes("Reporter"), { message: "the reporter to go again (redo)" });
  await session.keys(CONTROL, "z");
  await session.waitFor(async () => (await names()).includes("Reporter"), { message: "the reporter back (undo)" });
  // Undone back to the saved crew: nothing unsaved (the dot goes with the same update).
  await session.waitFor(async () => (await unsaved()) === 0, { message: "no unsaved changes after undoing back to the saved crew" });
});

/** Waits until the page as it is now has been drawn, so a screenshot shows it. */
const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** A screenshot at 1440×900, and one of the page drawn at 200 % zoom. */
async function wideAndZoomed(name) {
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await drawn();
  await session.screenshot(`${OUT}/${name}-1440x900.png`);
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await drawn();
    await session.screenshot(`${OUT}/${name}-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    // Laid out at 100 % again before a click is computed against the page.
    await drawn();
  }
}

test("the crew's history lists each save with what changed, compares two revisions on the canvas and restores one as an undoable edit", async () => {
  const lab = `${CREWS}/lab.yaml`;
  const names = () => session.texts(".canvas .react-flow__node-agent .agent-name");
  // A second revision: a critic the teacher sends work to with [REVISE], and the
  // teacher's instructions written, saved.
  await addAgent("critic", "Critic", "Reads it closely");
  await fitAll();
  await connect("teacher", "agent:critic", "[REVISE]");
  await session.click('.react-flow__node[data-id="agent:teacher"]');
  await session.waitFor(async () => (await inspected()).includes("Teacher"), { message: "the teacher selected, in the inspector" });
  await typeInto(await field(".ins", "Instructions"), "Ask one question at a time, and send any answer that is unclear to the critic with [REVISE].");
  await session.keys("\uE004"); // Tab: the field applies when it is left
  await session.keys(CONTROL, "s");
  await session.waitFor(async () => (await session.find(".dirty-dot")).length === 0, { message: "the save (the unsaved dot to go)" });

  await session.click('.file-actions button[aria-pressed]');
  await session.visible(".history-item", { count: 2 });
  const items = () => session.execute(`return [...document.querySelectorAll('.history-item')].map((i) => [i.dataset.revision, i.querySelector('.history-changes').textContent])`);
  const [[newest, changed], [oldest, first]] = await items();
  assert.deepEqual([newest, oldest], ["2", "1"], "newest first");
  assert.match(changed, /Added agent Critic/);
  assert.match(changed, /Added Teacher's route \[REVISE\] to Critic/);
  assert.match(changed, /Set Teacher's instructions|Changed Teacher's instructions/);
  assert.match(first, /The first revision kept/);
  await wideAndZoomed("16-editor-history");

  // The two newest are ticked: one click compares them, over the canvas.
  await session.click(".history-compare");
  await session.visible('.revision-compare .react-flow__node[data-id="agent:critic"].diff-added');
  await session.waitFor(async () => (await session.find(".revision-compare .react-flow__edge.diff-added")).length === 1, { message: "the new [REVISE] arrow marked added" });
  const all = (css) => session.execute(`return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)`, [css]);
  const sentences = await all(".revision-compare .compare-sentences li");
  assert.ok(sentences.includes("Added agent Critic") && sentences.includes("Added Teacher's route [REVISE] to Critic"), JSON.stringify(sentences));
  assert.deepEqual(await all(".revision-compare .text-diff figcaption"), ["Teacher's instructions"], JSON.stringify(sentences));
  assert.deepEqual(await all(".revision-compare .text-diff ins"), ["+Ask one question at a time, and send any answer that is unclear to the critic with [REVISE].\n"]);
  await session.execute(`document.querySelector('.revision-compare .text-diff').scrollIntoView({ block: "nearest" })`);
  await session.waitForStable(() => session.execute(`return document.querySelector('.revision-compare .react-flow__viewport')?.style.transform ?? ''`), { message: "the compared graph fitted" });
  await wideAndZoomed("17-editor-revisions-compared");
  await session.click(".compare-header .primary"); // Close the comparison
  await session.waitFor(async () => (await session.find(".revision-compare")).length === 0, { message: "the comparison to close" });

  // Restore revision 1: the critic goes, as one edit Undo takes back.
  await session.click('.history-item[data-revision="1"] .history-restore');
  await session.waitFor(async () => !(await names()).includes("Critic"), { message: "the critic to go (revision 1 restored)" });
  assert.equal((await session.find(".dirty-dot")).length, 1, "a restored revision is an unsaved change");
  assert.match((await session.texts(".history-said"))[0], /Revision 1 is back in the editor/);
  await session.screenshot(`${OUT}/18-editor-restored.png`);
  await session.keys(CONTROL, "z");
  await session.waitFor(async () => (await names()).includes("Critic"), { message: "the critic back (undo)" });
  await session.waitFor(async () => (await session.find(".dirty-dot")).length === 0, { message: "back to the saved crew" });
  await session.click(".history-header button");
  await session.visible(".ins");
  assert.match(await readFile(lab, "utf8"), /id: critic/, "the file is revision 2, as saved");
});

test("a 1,000-agent crew pans and zooms smoothly", async () => {
  await openCrew(session, BIG);
  // (E2E_CANVAS_CSS adds a style sheet first, for experiments on what costs what.)
  if (process.env.E2E_CANVAS_CSS) await session.execute("const s = document.createElement('style'); s.textContent = arguments[0]; document.head.append(s);", [process.env.E2E_CANVAS_CSS]);
  // Zoomed out to show all of it, the crew is painted as one picture (FarView).
  await session.waitFor(async () => (await session.find(".far-view canvas")).length === 1, { message: "the 1,000-agent crew's picture (FarView)", timeout: 120_000 });
  await canvasAtRest("with the whole 1,000-agent crew in view");
  const measure = (zoomed) => session.call("POST", "/execute/async", { script: `const [zoomed, done] = arguments;${MEASURE_CANVAS}`, args: [zoomed] });
  const wholePan = await measure(false);
  const wholeZoom = await measure(true);
  await session.screenshot(`${OUT}/14-editor-1000-agents.png`);
  // Zoomed in to where cards are readable (React Flow draws the cards in view): from
  // the whole crew fitted again (the measurements above pan and zoom by as much as
  // the frames they got, so they leave the view somewhere else on a slower machine),
  // towards the middle of the pane, where the fitted crew is.
  await fitAll();
  await session.execute(ZOOM_TO_CARDS);
  await session.visible(".react-flow__node-agent .agent-name", { count: 4, timeout: 120_000 });
  await canvasAtRest("zoomed in on the 1,000-agent crew");
  const closePan = await measure(false);
  const closeZoom = await measure(true);
  await session.screenshot(`${OUT}/15-editor-1000-agents-near.png`);
  const figures = {
    wholeCrewPan: canvasFigure(wholePan),
    wholeCrewZoom: canvasFigure(wholeZoom),
    cardsReadablePan: canvasFigure(closePan),
    cardsReadableZoom: canvasFigure(closeZoom),
  };
  await writeFile(`${OUT}/canvas-fps.json`, JSON.stringify(figures, null, 2));
  console.log(`canvas with 1,000 agents and 3,000 edges: ${JSON.stringify(figures)}`);
  // Figures, not thresholds: only that each measurement saw frames go by.
  for (const [what, m] of Object.entries({ wholePan, wholeZoom, closePan, closeZoom })) assert.ok(m.frames > 1, `frames were measured (${what}: ${m.frames})`);
});

async function cardPosition(agent) {
  return session.execute(
    `const node = document.querySelector('.react-flow__node[data-id="agent:' + arguments[0] + '"]');
     return node.style.transform;`,
    [agent],
  );
}
