// End-to-end test of the graph editor in the real window (run by run-window.sh after
// window.test.mjs): build a three-agent crew on an empty canvas with the agent form
// and edge drawing — a parallel group and a termination edge among them — watch a
// problem appear and go away, save, reopen, and compare the YAML with the expected
// file. Then the frame rate of panning and zooming a 1,000-agent crew.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";

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

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Opens a crew through the window's automation hook and waits for its header. */
async function openCrew(path) {
  await session.until("the automation hook", () => session.execute("return Boolean(window.crewgraph)"));
  await session.execute("window.crewgraph.openCrew(arguments[0])", [path]);
  await session.waitFor(".crew-header h1");
}

/** The input or textarea whose label starts with `label`, inside `scope`. */
async function field(scope, label) {
  return session.until(`the field '${label}'`, async () => {
    const element = await session.execute(
      `const [scope, label] = arguments;
       const found = [...document.querySelectorAll(scope + " label")].find((l) => l.textContent.trim().startsWith(label));
       return found ? (found.control ?? document.getElementById(found.htmlFor)) : null;`,
      [scope, label],
    );
    return element;
  });
}

async function typeInto(element, text) {
  const id = Object.values(element)[0];
  await session.call("POST", `/element/${id}/clear`, {});
  await session.call("POST", `/element/${id}/value`, { text });
}

async function addAgent(id, name, role) {
  await session.click(".toolbar .primary");
  await session.waitFor('[role="dialog"] h2');
  await typeInto(await field('[role="dialog"]', "Name"), name);
  await typeInto(await field('[role="dialog"]', "Id"), id);
  await typeInto(await field('[role="dialog"]', "Role"), role);
  const [submit] = await session.find('[role="dialog"] button[type="submit"]');
  await session.call("POST", `/element/${submit}/click`, {});
  await session.until(`${name}'s card`, async () => (await session.texts(".react-flow__node-agent .agent-name")).includes(name));
}

/** Draws an edge from an agent card's out-handle to a node and answers the dialog. */
async function connect(fromAgent, toNode, signal, where = "") {
  await session.drag(`.react-flow__node[data-id="agent:${fromAgent}"] .react-flow__handle.source`, `.react-flow__node[data-id="${toNode}"] ${where}`.trim());
  await session.waitFor(".connect-dialog h2");
  await session.type('.connect-dialog input[name="signal"]', signal);
  await session.until("the signal to check out", async () => session.execute(`return !document.querySelector('.connect-dialog button[type="submit"]').disabled`));
  await session.click('.connect-dialog button[type="submit"]');
  await session.until("the dialog to close", async () => (await session.find(".connect-dialog")).length === 0);
}

const problems = () => session.texts(".problem .problem-plain");
/** Every edge pill's text, seen or covered (a pill may sit under a card until Tidy up). */
const pills = () => session.execute(`return [...document.querySelectorAll('.edge-pill')].map((p) => p.textContent)`);

test("a crew is built on an empty canvas, checked live, saved and reopened as the expected YAML", async () => {
  const lab = `${CREWS}/lab.yaml`;
  await openCrew(lab);
  await session.waitFor(".canvas-hint");
  await session.screenshot(`${OUT}/10-editor-empty.png`);

  await addAgent("teacher", "Teacher", "Asks one question at a time");
  // An agent with no way to finish or hand off: the engine says so, live, on its card
  // and in the list; the problem goes away once the teacher can finish (below).
  await session.until("the no-way-out problem", async () => (await problems()).join("\n").match(/teacher has no way to finish/));
  assert.deepEqual(await session.execute(`return [...document.querySelectorAll('.agent-card.has-warning .agent-name')].map((n) => n.textContent)`), ["Teacher"]);
  await session.screenshot(`${OUT}/11-editor-problem.png`);
  await addAgent("student", "Student", "Answers");
  await addAgent("reporter", "Reporter", "Keeps score");

  // Student and reporter side by side: select both, make a group.
  await session.keys("\uE00C");
  await session.keys("f"); // the whole crew in view
  await pause(500);
  await session.click('.react-flow__node[data-id="agent:student"]');
  await session.clickWith('.react-flow__node[data-id="agent:reporter"] .agent-name', CONTROL);
  await session.until("two selected", async () => (await session.find(".react-flow__node.selected")).length === 2);
  await session.click('.toolbar button[title^="Make a parallel group"]');
  await session.until("the group frame", async () => (await session.find(".react-flow__node-group")).length === 1);
  await session.keys("\uE00C");
  await session.keys("f"); // everything in view again
  await pause(500);
  await session.screenshot(`${OUT}/12-editor-grouped.png`);
  assert.deepEqual(await session.texts(".group-name"), ["group_1"]);

  // The teacher's [QUESTION] goes to the group; [END_EXAM] into the End node finishes the run.
  await connect("teacher", "group:group_1", "[QUESTION]", ".group-header"); // the frame, not a card inside it
  await session.until("the parallel edge", async () => (await pills()).some((p) => p.includes("[QUESTION]")));
  await connect("teacher", "end", "[END_EXAM]");
  await session.until("the terminate edge", async () => (await pills()).some((p) => p.includes("[END_EXAM]")));
  await session.until("the no-way-out problem to go", async () => !(await problems()).join("\n").match(/teacher has no way to finish/));
  assert.deepEqual((await problems()).filter((p) => p), [], "the finished crew has no problems");
  assert.match((await session.texts(".crew-status"))[0], /Ready to run/);
  await session.screenshot(`${OUT}/12-editor-built.png`);

  // Save (Ctrl+S): the unsaved dot goes, the file holds exactly the expected YAML.
  assert.equal((await session.find(".dirty-dot")).length, 1, "unsaved changes are marked");
  await session.keys(CONTROL, "s");
  await session.until("the save", async () => (await session.find(".dirty-dot")).length === 0);
  const saved = await readFile(lab, "utf8");
  await writeFile(`${OUT}/lab-saved.yaml`, saved);
  assert.equal(saved, await readFile(new URL("./fixtures/lab-expected.yaml", import.meta.url), "utf8"));
  const teacherAt = await cardPosition("teacher");

  // Back to the start, open it again: the same crew, the cards where they were.
  await session.click(".brand");
  await session.waitFor(".crew-card");
  await openCrew(lab);
  await session.waitFor(".react-flow__node-agent .agent-name", { count: 3 });
  await pause(300);
  await session.screenshot(`${OUT}/13-editor-reopened.png`);
  assert.deepEqual((await session.texts(".react-flow__node-agent .agent-name")).sort(), ["Reporter", "Student", "Teacher"]);
  assert.deepEqual(await session.texts(".group-name"), ["group_1"]);
  assert.deepEqual(await cardPosition("teacher"), teacherAt, "the teacher's card is where it was saved");
});

test("undo and redo walk back and forth through edits, and delete takes an agent's routes with it", async () => {
  await session.click('.react-flow__node[data-id="agent:reporter"]');
  await session.keys("\uE017"); // Delete
  await session.until("the reporter to go", async () => !(await session.texts(".react-flow__node-agent .agent-name")).includes("Reporter"));
  await session.keys(CONTROL, "z");
  await session.until("the reporter to come back", async () => (await session.texts(".react-flow__node-agent .agent-name")).includes("Reporter"));
  await session.keys(CONTROL, SHIFT, "z");
  await session.until("the reporter to go again", async () => !(await session.texts(".react-flow__node-agent .agent-name")).includes("Reporter"));
  await session.keys(CONTROL, "z");
  await session.until("the reporter back", async () => (await session.texts(".react-flow__node-agent .agent-name")).includes("Reporter"));
  assert.equal((await session.find(".dirty-dot")).length, 0, "undoing back to the saved crew leaves nothing unsaved");
});

test("a 1,000-agent crew pans and zooms smoothly", async () => {
  await openCrew(BIG);
  // Zoomed out to show all of it, the crew is painted as one picture (FarView).
  await session.until("the crew's picture", async () => (await session.find(".far-view canvas")).length === 1, 60000);
  await pause(500);
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
          if (step < 180 && now - started < 8000) requestAnimationFrame(tick);
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
  // Zoomed in to where cards are readable (React Flow draws the cards in view).
  await session.execute(`
    const pane = document.querySelector('.react-flow__pane');
    const box = pane.getBoundingClientRect();
    const zoom = () => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
    for (let i = 0; i < 80 && zoom() < 0.9; i++)
      pane.dispatchEvent(new WheelEvent('wheel', { clientX: box.left + 200, clientY: box.top + 150, deltaY: -300, bubbles: true, cancelable: true }));`);
  await session.waitFor(".react-flow__node-agent .agent-name", { count: 4 });
  await pause(500);
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
  const whole = wholePan;
  const close = closePan;
  assert.ok(whole.frames > 10 && close.frames > 10, "frames were measured");
});

async function cardPosition(agent) {
  return session.execute(
    `const node = document.querySelector('.react-flow__node[data-id="agent:' + arguments[0] + '"]');
     return node.style.transform;`,
    [agent],
  );
}
