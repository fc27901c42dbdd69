// End-to-end test of the real window: the Tauri app under Xvfb, driven through
// tauri-driver and WebKitWebDriver (run by tests/e2e/run-window.sh).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Session } from "./webdriver.mjs";
import { CANVAS_STATE } from "./in-page.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
let session;

before(async () => {
  assert.ok(APP, "CREWGRAPH_APP must name the built app");
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
});

after(async () => {
  await session?.end();
});

async function openExample(fileName) {
  await session.click(".brand");
  // (Below the first rows, a card is scrolled to first, as a person would.)
  await session.waitFor(() => session.execute(`const card = document.querySelector(arguments[0]); card?.scrollIntoView({ block: "nearest" }); return Boolean(card);`, [`.crew-card[data-crew="${fileName}"]`]), { message: `the card of ${fileName}` });
  await session.click(`.crew-card[data-crew="${fileName}"]`);
  // The start view has no crew header: one showing means the crew opened (so a
  // graph that fails to appear afterwards is told apart from a click that was lost).
  await session.visible(".crew-header h1");
}

/** Waits until the canvas is at rest: no glide under way, the view and the cards
 * where they were a moment ago. */
const canvasAtRest = (why) => session.waitForStable(() => session.execute(CANVAS_STATE), { message: `the canvas to come to rest ${why}` });

/** Waits until the visible texts at `css` are exactly `expected` (in any order). */
async function showsExactly(css, expected, what) {
  let last = [];
  await session.waitFor(
    async () => {
      last = await session.texts(css);
      return JSON.stringify([...last].sort()) === JSON.stringify([...expected].sort());
    },
    { message: () => `${what}: ${JSON.stringify(expected)} (visible: ${JSON.stringify(last)})` },
  );
}

/** Waits until the first visible text at `css` matches `pattern`. */
async function showsMatch(css, pattern, what) {
  let last = [];
  await session.waitFor(
    async () => {
      last = await session.texts(css);
      return pattern.test(last[0] ?? "");
    },
    { message: () => `${what} to match ${pattern} (visible: ${JSON.stringify(last)})` },
  );
}

test("the start view lists every example crew with a picture of its graph", async () => {
  await session.visible(".crew-card", { count: 3 });
  // Seven cards do not all fit: scroll to the last one, which must then be visible.
  const names = await session.execute(`return [...document.querySelectorAll(".crew-card-name")].map((n) => n.textContent)`);
  await session.execute(`[...document.querySelectorAll(".crew-card")].pop().scrollIntoView()`);
  await session.waitFor(async () => (await session.texts(".crew-card-name")).includes(names[names.length - 1]), { message: "the last card to scroll into view" });
  await session.execute(`document.querySelector(".crew-card").scrollIntoView()`);
  await session.waitFor(async () => (await session.texts(".crew-card-name")).includes(names[0]), { message: "the first card to scroll back into view" });
  // A press on a card's picture is a press on the card: the picture is swapped when
  // its layout arrives, and WebKit drops a click whose press target went away.
  const pressed = await session.execute(`
    const picture = document.querySelector(".crew-card .thumbnail").getBoundingClientRect();
    const hit = document.elementFromPoint(picture.left + picture.width / 2, picture.top + picture.height / 2);
    return hit && hit.tagName + "." + hit.getAttribute("class");`);
  assert.equal(pressed, "BUTTON.crew-card");
  for (const name of ["Fractions exam", "Research and write", "Support triage", "Thi vấn đáp", "Quiz night", "Code review pipeline", "Broken crew"]) {
    assert.ok(names.includes(name), `start view should offer ${name}; it shows ${names.join(", ")}`);
  }
  // Thumbnails are laid out graphs, not placeholders.
  await session.waitFor(async () => (await session.find("svg.thumbnail rect.thumb-node")).length >= 10, { message: "the thumbnails' laid-out nodes" });
  await session.screenshot(`${OUT}/01-start.png`);
});

test("opening the exam crew draws its agents, its group and its labelled signal edges", async () => {
  await openExample("exam.yaml");
  await session.visible(".react-flow__node-agent .agent-name", { count: 3 });
  const agents = await session.texts(".react-flow__node-agent .agent-name");
  assert.deepEqual([...agents].sort(), ["Reporter", "Student", "Teacher"]);
  await session.visible(".edge-pill", { count: 3 });
  await canvasAtRest("with the exam crew laid out");
  const pills = await session.texts(".edge-pill");
  assert.ok(pills.some((p) => p.includes("[QUESTION]")), `an edge should be labelled [QUESTION]; pills: ${pills}`);
  assert.ok(pills.some((p) => p.includes("[END_EXAM]")), `an edge should be labelled [END_EXAM]; pills: ${pills}`);
  await showsExactly(".group-name", ["exam_round"], "the group's name on its frame");
  // The members sit inside the group frame.
  const inside = await session.execute(`
    const frame = document.querySelector('.react-flow__node-group').getBoundingClientRect();
    return [...document.querySelectorAll('.react-flow__node-agent')]
      .filter((n) => n.querySelector('.agent-name').textContent !== 'Teacher')
      .every((n) => { const r = n.getBoundingClientRect();
        return r.left >= frame.left && r.right <= frame.right && r.top >= frame.top && r.bottom <= frame.bottom; });`);
  assert.equal(inside, true, "student and reporter should be drawn inside the exam_round frame");
  await showsMatch(".crew-status", /Ready to run/, "the crew's status");
  await session.screenshot(`${OUT}/02-exam.png`);
});

test("clicking a signal pill shows what the signal does", async () => {
  assert.equal((await session.find('.edge-pill[data-edge^="rule:teacher:0"]')).length, 1, "the [QUESTION] rule's pill should be on the canvas");
  await session.click('.edge-pill[data-edge^="rule:teacher:0"]');
  await session.waitFor(async () => (await session.texts(".ins h2")).some((t) => t.includes("Teacher → exam_round")), { message: "the route in the inspector" });
  const signal = await session.execute(`return [...document.querySelectorAll(".ins input")].map((i) => i.value)`);
  assert.ok(signal.includes("[QUESTION]"), `the route's signal is shown for editing; fields: ${signal}`);
  assert.match((await session.texts(".ins .ins-text")).join(" | "), /starts a group working side by side/);
  await session.screenshot(`${OUT}/03-signal-selected.png`);
});

test("a broken crew shows its problems on the graph and in the list", async () => {
  await openExample("broken-crew.yaml");
  await session.visible(".react-flow__node-agent .agent-name", { count: 2 });
  await session.visible(".problem .problem-plain", { count: 1 });
  const problems = (await session.texts(".problem .problem-plain")).join("\n");
  assert.match(problems, /\[PLAN_READY\] leads to 'executor', but there is no agent or group with that id/);
  const exact = (await session.texts(".problem .problem-exact")).join("\n");
  assert.match(exact, /signal '\[PLAN_READY\]' targets unknown agent 'executor'/);
  assert.match(exact, /broken-crew\.yaml:17:17/);
  await showsMatch(".crew-status", /Cannot run yet: 1 error/, "the crew's status");
  // The planner card wears the error badge (its rule's edge could not be drawn).
  const badged = await session.execute(`
    return [...document.querySelectorAll('.agent-card.has-error .agent-name')].map((n) => n.textContent);`);
  assert.deepEqual(badged, ["Planner"]);
  // The unknown tool is a warning on the doer.
  const warned = await session.execute(`
    return [...document.querySelectorAll('.agent-card.has-warning .agent-name')].map((n) => n.textContent);`);
  assert.deepEqual(warned, ["Doer"]);
  // Clicking the problem selects its culprit.
  await session.click(".problem.error button");
  await session.waitFor(async () => (await session.texts(".ins h2")).includes("Planner"), { message: "the planner in the inspector" });
  // The view glides to the planner: wait for the glide to end, the planner on screen.
  await canvasAtRest("after gliding to the planner");
  await session.visible('.react-flow__node[data-id="agent:planner"] .agent-name');
  await session.waitFor(async () => /executor/.test((await session.texts(".ins-problems li")).join("\n")), { message: "the planner's problem in the inspector" });
  await session.screenshot(`${OUT}/04-broken.png`);
});

test("the scoring crew shows the supervisor's choices and the finalizer", async () => {
  await openExample("support-triage.yaml");
  await session.visible(".react-flow__node-agent .agent-name", { count: 6 });
  let pills = [];
  await session.waitFor(
    async () => {
      pills = await session.texts(".edge-pill");
      return pills.filter((p) => p === "best match").length === 4;
    },
    { message: () => `four specialists to pick from, four 'best match' pills (pills: ${pills})` },
  );
  await session.visible(".end-node");
  await session.screenshot(`${OUT}/05-scoring.png`);
});

test("the Go-engine crew folder opens with its parallel group and fallback", async () => {
  await openExample("go-quiz");
  await session.visible(".react-flow__node-agent .agent-name", { count: 4 });
  await session.visible(".edge-pill", { count: 3 });
  await canvasAtRest("with the Go-engine crew laid out");
  const pills = await session.texts(".edge-pill");
  assert.ok(pills.includes("otherwise"), `the defaults: entry draws an 'otherwise' edge; pills: ${pills}`);
  await showsExactly(".group-name", ["after_answer"], "the group's name on its frame");
  await session.screenshot(`${OUT}/06-go-folder.png`);
});

test("a long chain is laid out so its cards stay readable", async () => {
  await openExample("research-loop.yaml");
  await session.visible(".react-flow__node-agent .agent-name", { count: 4 });
  await canvasAtRest("with the chain laid out and fitted");
  // Read at no less than ~70 % of their size: a card's name stays above 9 px.
  const smallest = await session.execute(`
    return Math.min(...[...document.querySelectorAll('.react-flow__node-agent .agent-name')]
      .map((n) => n.getBoundingClientRect().height));`);
  assert.ok(smallest >= 9, `agent names are drawn ${smallest.toFixed(1)} px high`);
  const pills = await session.texts(".edge-pill");
  assert.ok(pills.some((p) => p.includes("[REVISE]")), `the judge's way back is labelled; pills: ${pills}`);
  await session.screenshot(`${OUT}/07-research-chain.png`);
});
