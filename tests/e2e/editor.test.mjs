// End-to-end test of the graph editor in the real window (run by run-window.sh after
// window.test.mjs): build a three-agent crew on an empty canvas with the agent form
// and edge drawing — a parallel group and a termination edge among them — watch a
// problem appear and go away, save, reopen, and compare the YAML with the expected
// file. Then the frame rate of panning and zooming a 1,000-agent crew.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { openCrew } from "./app.mjs";
import { CANVAS_STATE } from "./in-page.mjs";

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

test("a 1,000-agent crew pans and zooms smoothly", async () => {
  await openCrew(session, BIG);
  // Zoomed out to show all of it, the crew is painted as one picture (FarView).
  await session.waitFor(async () => (await session.find(".far-view canvas")).length === 1, { message: "the 1,000-agent crew's picture (FarView)", timeout: 120_000 });
  await canvasAtRest("with the whole 1,000-agent crew in view");
  const measure = (label, zoomed) =>
    session.call("POST", "/execute/async", {
      script: `
        const [zoomed, done] = arguments;
        const pane = document.querySelector('.react-flow__pane');
        const box = pane.getBoundingClientRect();
        const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
        const frames = [];
        let last = performance.now();
        let step = 0;
        const started = performance.now();
        const tick = (now) => {
          frames.push(now - last);
          last = now;
          step += 1;
          // Zooming (a wheel notch a frame, in and out) or panning (a drag of the pane).
          if (zoomed) {
            pane.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: step % 40 < 20 ? -40 : 40, bubbles: true, cancelable: true }));
          } else {
            const dx = step % 60 < 30 ? 8 : -8;
            pane.dispatchEvent(new MouseEvent('mousedown', { ...at, button: 0, bubbles: true }));
            window.dispatchEvent(new MouseEvent('mousemove', { clientX: at.clientX + dx, clientY: at.clientY, buttons: 1, bubbles: true }));
            window.dispatchEvent(new MouseEvent('mouseup', { clientX: at.clientX + dx, clientY: at.clientY, bubbles: true }));
          }
          // About 180 frames or 8 s, whichever comes first — but at least 30 frames
          // (within a minute), so a slow machine gives slow figures, not none.
          const elapsed = now - started;
          if ((step < 180 && elapsed < 8000) || (step < 30 && elapsed < 60000)) requestAnimationFrame(tick);
          else {
            const sorted = frames.slice(1).sort((a, b) => a - b);
            done({ median: sorted[Math.floor(sorted.length / 2)], p95: sorted[Math.floor(sorted.length * 0.95)], frames: sorted.length });
          }
        };
        requestAnimationFrame(tick);`,
      args: [zoomed],
    });
  const wholePan = await measure("the whole crew, panning", false);
  const wholeZoom = await measure("the whole crew, zooming", true);
  await session.screenshot(`${OUT}/14-editor-1000-agents.png`);
  // Zoomed in to where cards are readable (React Flow draws the cards in view): from
  // the whole crew fitted again (the measurements above pan and zoom by as much as
  // the frames they got, so they leave the view somewhere else on a slower machine),
  // towards the middle of the pane, where the fitted crew is.
  await fitAll();
  await session.execute(`
    const pane = document.querySelector('.react-flow__pane');
    const box = pane.getBoundingClientRect();
    const zoom = () => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
    for (let i = 0; i < 80 && zoom() < 0.9; i++)
      pane.dispatchEvent(new WheelEvent('wheel', { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, deltaY: -300, bubbles: true, cancelable: true }));`);
  await session.visible(".react-flow__node-agent .agent-name", { count: 4, timeout: 120_000 });
  await canvasAtRest("zoomed in on the 1,000-agent crew");
  const closePan = await measure("cards readable, panning", false);
  const closeZoom = await measure("cards readable, zooming", true);
  await session.screenshot(`${OUT}/15-editor-1000-agents-near.png`);
  const figure = (m) => ({ medianFps: Math.round(1000 / m.median), p95FrameMs: Math.round(m.p95), frames: m.frames });
  const figures = {
    wholeCrewPan: figure(wholePan),
    wholeCrewZoom: figure(wholeZoom),
    cardsReadablePan: figure(closePan),
    cardsReadableZoom: figure(closeZoom),
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
