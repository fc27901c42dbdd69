// End-to-end test of route coverage in the real window (issue 18, item 5), run by
// run-window.sh: the run dock's Test tab tests the crew open (one simulated run per
// arrow, no model called), and while the tab is open the canvas paints each arrow by
// how often those runs took it, with a legend; arrows no run can take are drawn red
// and dashed and listed with why, as are agents no run reaches. Leaving the tab gives
// the arrows their own colours back.
//
// Screenshots (target/e2e/coverage-*.png) at 1440×900 and at 200 % zoom, of the
// research loop (every arrow taken, some more often than others) and of a crew of
// this test's own with arrows no run can take.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { forgetLayout, openCrew, unfoldRunPanel } from "./app.mjs";
import { CANVAS_STATE } from "./in-page.mjs";
import { Session } from "./webdriver.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const CREWS = process.env.E2E_CREWS;
let session;
let work;

/** A crew with arrows no run can take: a route an earlier rule shadows, a second
 * otherwise arrow, and an agent nothing leads to. */
const TANGLED = `version: "1.0"
name: Tangled desk
description: A host with routes that look fine and are never taken.
entry_point: host
agents:
  - { id: host, name: Host, role: Takes the request, handoff_targets: [helper, closer] }
  - { id: helper, name: Helper, role: Helps }
  - { id: closer, name: Closer, role: Closes, is_terminal: true }
  - { id: archivist, name: Archivist, role: Files the result, is_terminal: true }
signals:
  - { name: "[HELP]", behavior: route, description: asks for help }
  - { name: "[DONE]", behavior: terminate, description: the work is done }
  - { name: stop, pattern: '^TICKET', behavior: terminate, description: a ticket closes it }
  - { name: ticket, pattern: '^TICKET (\\d+)$', behavior: route, description: files a ticket }
routing:
  signals:
    host:
      - { signal: "[HELP]", target: helper }
      - { signal: "[DONE]", target: "" }
      - { signal: stop, target: "" }
      - { signal: ticket, target: archivist }
    helper:
      - { signal: "[DONE]", target: "" }
`;

before(async () => {
  assert.ok(APP && CREWS, "CREWGRAPH_APP and E2E_CREWS must be set (run-window.sh)");
  work = await mkdtemp(join(tmpdir(), "crewgraph-coverage-"));
  await writeFile(join(work, "tangled.yaml"), TANGLED);
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "coverage-";
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await session.waitFor(() => session.execute("return Boolean(window.crewgraph)"), { message: "the window" });
  await forgetLayout(session);
});

after(async () => {
  await forgetLayout(session).catch(() => {});
  await session?.end();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Waits until the canvas is at rest. */
const canvasAtRest = (why) => session.waitForStable(() => session.execute(CANVAS_STATE), { message: `the canvas to come to rest ${why}` });

/** Waits until the page as it is now has been drawn, so a screenshot shows it. */
const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** A screenshot at 1440×900, and one at 200 % zoom. */
async function screenshots(name) {
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await canvasAtRest("at 1440×900");
  await drawn();
  await session.screenshot(`${OUT}/${name}-1440x900.png`);
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await drawn();
    await session.screenshot(`${OUT}/${name}-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    await drawn();
  }
}

/** Each arrow's id with the paint it is drawn with now (its line's inline stroke). */
const PAINT = `
  return Object.fromEntries([...document.querySelectorAll('.react-flow__edge')].map((edge) => {
    const path = edge.querySelector('path.react-flow__edge-path');
    return [edge.getAttribute("data-id") ?? edge.id, { stroke: path.style.stroke, dash: path.style.strokeDasharray.replace(/,/g, "") }];
  }));`;

/** Opens the Test tab of the run dock. */
async function openTestTab() {
  await unfoldRunPanel(session);
  await session.waitFor(
    () => session.execute(`const tab = [...document.querySelectorAll('.run-tab')].find((t) => t.textContent === 'Test'); tab?.click(); return tab?.getAttribute('aria-selected') === 'true';`),
    { message: "the Test tab" },
  );
}

/** Presses the test's button and waits for its verdict. */
async function runTest() {
  await session.waitFor(
    () =>
      session.execute(`const b = [...document.querySelectorAll('.run-test button')].find((b) => /^Test (the routes|again)$/.test(b.textContent));
        if (!b || b.disabled) return false;
        b.click();
        return true;`),
    { message: "the test's button" },
  );
  return session.waitFor(
    () =>
      session.execute(`const b = [...document.querySelectorAll('.run-test button')].find((b) => b.textContent === 'Test again');
        const v = document.querySelector('.test-verdict');
        return b && !b.disabled && v && /(passed|failed)/.test(v.className) ? v.textContent : null;`),
    { message: "the test's verdict" },
  );
}

test("the Test tab paints every arrow of the research loop by how often the runs took it", async () => {
  await openCrew(session, join(CREWS, "research-loop.yaml"));
  await canvasAtRest("with the research loop open");
  await openTestTab();
  const verdict = await runTest();
  assert.equal(verdict, "Every arrow was taken in 7 simulated runs, and every run ended as planned.");
  // Researcher → Writer and Judge → End are in every run; Judge → Writer in one of seven.
  const find = (edges, source, target) => Object.entries(edges).find(([id]) => id.includes(source) && id.endsWith(target))?.[1].stroke;
  const paint = await session.waitFor(async () => {
    const now = await session.execute(PAINT);
    const edges = Object.values(now);
    // Drawn (a canvas between two renders has no arrows at all, which every() would pass) and painted.
    const laidOut = edges.length > 0 && (now["rule:researcher:0:agent:writer"] ?? find(now, "researcher", "agent:writer")) !== undefined;
    return laidOut && edges.every((p) => p.stroke.startsWith("var(--coverage-")) && now;
  }, { message: "every arrow painted by the test" });
  const of = (source, target) => find(paint, source, target);
  assert.equal(paint["rule:researcher:0:agent:writer"]?.stroke ?? of("researcher", "agent:writer"), "var(--coverage-all)", JSON.stringify(paint));
  assert.equal(of("judge:1", "agent:writer"), "var(--coverage-few)", JSON.stringify(paint));
  assert.ok(!Object.values(paint).some((p) => p.stroke === "var(--coverage-never)"), "no arrow is never taken");
  const legend = await session.texts(".test-legend li");
  assert.deepEqual(legend, ["never taken", "in 1–2 of 7 runs", "in 3–4 of 7 runs", "in 5–7 of 7 runs"]);
  await screenshots("coverage-research-loop");
});

test("arrows no run can take are drawn red and dashed and listed with why", async () => {
  await openCrew(session, join(work, "tangled.yaml"));
  await canvasAtRest("with the tangled desk open");
  await openTestTab();
  const verdict = await runTest();
  assert.match(verdict, /^4 arrows are never taken \(\d+ simulated runs\)\.$/);
  const paint = await session.execute(PAINT);
  const never = Object.entries(paint).filter(([, p]) => p.stroke === "var(--coverage-never)");
  assert.equal(never.length, 4, JSON.stringify(paint));
  assert.ok(never.every(([, p]) => p.dash === "5 4"), "never-taken arrows are dashed");
  // (Read whole: the dock scrolls, and the last ones are below its fold at 1440×900.)
  const all = (css) => session.execute(`return [...document.querySelectorAll(arguments[0])].map((li) => li.textContent)`, [css]);
  const listed = await all('[aria-label="Arrows no run takes"] li');
  assert.deepEqual(listed, [
    "Host → Archivist · ticket: a reply with ticket is taken by Host's rule on stop first (terminate, then pause, then routes in file order)",
    "Host → Closer · otherwise: only Host's first otherwise arrow (to Helper) is ever taken",
    "Closer → End · finishes: no run from Host (where runs start) gives Closer work: no arrow a run takes leads to it",
    "Archivist → End · finishes: no run from Host (where runs start) gives Archivist work: no arrow a run takes leads to it",
  ]);
  const agents = await all('[aria-label="Agents no run reaches"] li');
  assert.equal(agents.length, 2, agents.join("\n"));
  await screenshots("coverage-tangled");

  // Another tab: the arrows wear their own colours again.
  await session.execute(`[...document.querySelectorAll('.run-tab')].find((t) => t.textContent === 'Handoffs').click()`);
  await session.waitFor(async () => !Object.values(await session.execute(PAINT)).some((p) => p.stroke.startsWith("var(--coverage-")), {
    message: "the arrows' own colours back",
  });
});
