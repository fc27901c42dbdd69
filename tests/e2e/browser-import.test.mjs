// End-to-end test of Import CrewAI project… in a real browser (run by
// run-browser.sh): from the start view, a person picks a CrewAI project's files
// (CrewAI's own quickstart layout: config/agents.yaml, config/tasks.yaml, crew.py —
// the engine's fixture), uploaded through the browser's file chooser; the crew opens
// as a new, unsaved crew with one card per CrewAI agent and the routes between them
// ending in End; the banner says what the run asks for ({topic}, {current_year}) and
// the warnings say what did not come along, each at its file:line:col. Simulate has
// nothing to replay yet, so the journey ends with the crew ready to save.
//
// Screenshots: target/e2e-browser/browser-import-*.png (the imported crew at
// 1400×900 and at 200 % zoom).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { screenshotsAtTwoSizes, startChromium } from "./chromium.mjs";
import { asExpression, CANVAS_STATE } from "./in-page.mjs";
import { waitForStable } from "./webdriver.mjs";

const URL_ = process.env.E2E_URL;
const TOKEN = process.env.E2E_TOKEN;
const OUT = process.env.E2E_OUT ?? "target/e2e-browser";
const PROJECT = join(
  import.meta.dirname,
  "../../src-tauri/crates/engine/tests/fixtures/crewai/latest_ai_development/src/latest_ai_development",
);

let browser;
let page;
let complaints;

before(async () => {
  assert.ok(URL_ && TOKEN, "E2E_URL and E2E_TOKEN must be set (run-browser.sh)");
  ({ browser, page, complaints } = await startChromium());
});

after(async () => {
  await browser?.close();
});

const canvasAtRest = (why) => waitForStable(() => page.evaluate(asExpression(CANVAS_STATE)), { message: `the canvas to come to rest ${why}` });

/** Screenshots of the page now, at 1400×900 and at 200 % zoom. */
const screenshots = (name) => screenshotsAtTwoSizes(page, `${OUT}/browser-import-${name}`, { settle: (when) => canvasAtRest(`for ${name} ${when}`) });

test("a CrewAI project's files become a crew: its agents as cards, what the run asks for, and what did not come along", async () => {
  await page.goto(`${URL_}/#token=${TOKEN}`);
  await page.waitForSelector(".crew-card");
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /Import CrewAI project/ }).click();
  await (await chooser).setFiles([join(PROJECT, "config/agents.yaml"), join(PROJECT, "config/tasks.yaml"), join(PROJECT, "crew.py")]);

  // One card per CrewAI agent, named as CrewAI named them.
  await page.waitForFunction(() => document.querySelectorAll(".react-flow__node-agent .agent-name").length === 2, null, { timeout: 60000 });
  const names = await page.locator(".react-flow__node-agent .agent-name").allTextContents();
  assert.deepEqual(names.sort(), ["Reporting analyst", "Researcher"]);
  // The tasks in order, then End.
  await page.waitForSelector(".react-flow__node-end");

  // What the run asks for, in words.
  const page_ = await page.locator("body").innerText();
  assert.match(page_, /topic/, "the banner names the inputs the run asks for");
  assert.match(page_, /current_year/);
  // What did not come along, each at its place.
  assert.match(page_, /crew\.py:\d+:\d+/, "the Python tool's warning says where");
  assert.match(page_, /SerperDevTool/);
  assert.match(page_, /tasks\.yaml:\d+:\d+/, "output_file's warning says where");
  // A new crew, not saved yet: it says so.
  assert.match(page_, /not saved|unsaved|Save/i);

  await screenshots("crew");
  assert.deepEqual(complaints, [], "no error reached the browser's console");
});
