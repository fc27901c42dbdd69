// End-to-end test of tools in a real browser (run by run-browser.sh): the example
// crew crews/file-desk.yaml, opened from the start view and run in Simulate mode
// with its script against `crewgraph serve --token`, does real work through a real
// MCP server (npm's server-filesystem, in the repository's .tools, which
// run-browser.sh links beside the crews' copy): the reader's calls list and read the
// documents, and show in the transcript as tool cards with what the server answered;
// the writer's call of files.write_file asks first, in a card that takes the focus
// and shows its arguments; the person allows it by keyboard; the run finishes and
// the summary is on the server's disk. The same journey in the window is
// tools.test.mjs.
//
// Screenshots: target/e2e-browser/browser-tools-*.png (the approval card and the
// finished run, each at 1400×900 and at 200 % zoom; the read of the meeting notes
// opened in its card).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chooseSimulate, drawn, screenshotsAtTwoSizes, startChromium, statusIs } from "./chromium.mjs";
import { asExpression, CANVAS_STATE } from "./in-page.mjs";
import { waitForStable } from "./webdriver.mjs";

const URL_ = process.env.E2E_URL;
const TOKEN = process.env.E2E_TOKEN;
const CREWS = process.env.E2E_CREWS;
const OUT = process.env.E2E_OUT ?? "target/e2e-browser";
const RUN = ".run-buttons .run-button:nth-child(1)";

let browser;
let page;
let complaints;
let dialogs;

before(async () => {
  assert.ok(URL_ && TOKEN && CREWS, "E2E_URL, E2E_TOKEN and E2E_CREWS must be set (run-browser.sh)");
  ({ browser, page, complaints, dialogs } = await startChromium());
});

after(async () => {
  await browser?.close();
});

const texts = (selector) => page.locator(selector).allTextContents();
const status = async () => (await texts(".run-status"))[0] ?? "";
/** The element that has the focus, as the start of its HTML (for a message). */
const focused = () => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 160) ?? "nothing");

/** Waits until the canvas has stopped moving (no glide, no card still being laid
 * out): a screenshot shows it as a person sees it once it settles. */
const canvasAtRest = (why) => waitForStable(() => page.evaluate(asExpression(CANVAS_STATE)), { message: `the canvas to come to rest ${why}` });

/** Whether the element `selector` finds is where a person sees it: inside the window
 * and its scrolled panels, not covered (the element at its centre is it or in it). */
const inView = (selector) =>
  page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!top && (el.contains(top) || top.contains(el));
  }, selector);

/** Screenshots of the page now, at 1400×900 and at 200 % zoom with `selector` in view. */
const screenshots = (name, selector) =>
  screenshotsAtTwoSizes(page, `${OUT}/browser-tools-${name}`, { scrollTo: selector, settle: (when) => canvasAtRest(`for ${name} ${when}`) });

test("the file desk: the reader's real reads in tool cards, the write asks in a card with the focus, allowed by keyboard, the summary written", async () => {
  const desk = join(CREWS, "file-desk");
  const summary = join(desk, "summaries", "summary.md");
  // (The crews are a copy of the repository's, where trying the example leaves a
  // summary: gone, so that the one found at the end is this run's.)
  await rm(summary, { force: true });
  const notes = await readFile(join(desk, "meeting-notes.md"), "utf8");
  assert.match(notes, /Tom expects\s+it this week/, "the meeting notes hold the phrase this test looks for");

  // From the start view, as a person comes to it.
  await page.goto(`${URL_}/#token=${TOKEN}`);
  await page.click('.crew-card[data-crew="file-desk.yaml"]');
  await page.waitForFunction(() => document.querySelector(".crew-header h1")?.textContent.includes("File desk"));
  await page.waitForFunction(() => document.querySelectorAll(".react-flow__node-agent .agent-name").length === 2);
  await page.waitForFunction(() => /Ready to run/.test(document.querySelector(".crew-status")?.textContent ?? ""), null).catch(async () => {
    assert.fail(`the file desk should be ready to run; it says ${JSON.stringify(await texts(".crew-status"))}`);
  });

  // Simulate mode picks the script that comes with the crew (scripts/file-desk.yaml).
  await chooseSimulate(page, "file-desk.yaml");
  await page.fill(".run-input", "Summarise the documents");
  await page.click(RUN);

  // The writer's call asks: a card, with the focus, the call's arguments readable.
  const card = page.locator(".run-approval");
  await card.waitFor();
  await statusIs(page, /^Paused/);
  assert.equal(await status(), "Paused: Writer waits for you to allow files.write_file");
  assert.match(await card.locator(".run-approval-title").innerText(), /^Writer wants to use “write file” from files$/);
  await page.waitForFunction(() => document.querySelector(".run-approval")?.contains(document.activeElement)).catch(async () => {
    assert.fail(`the focus should be in the approval card; it is on ${await focused()}`);
  });
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), "Allow once", "the first choice has the focus");
  const args = Object.fromEntries(
    await card.locator(".run-approval-arg").evaluateAll((rows) => rows.map((row) => [row.querySelector("dt").textContent, row.querySelector("dd pre").textContent])),
  );
  assert.deepEqual(Object.keys(args), ["path", "content"]);
  assert.equal(args.path, "summaries/summary.md");
  assert.match(args.content, /^# Shelf: where things stand\n/);
  // All of it in sight at once in the run panel as it opens (1400×900), though the
  // content is long: who asks, the path, and the choices (the focus scrolled nothing away).
  for (const [what, selector] of [
    ["who asks", ".run-approval-title"],
    ["the path", ".run-approval-arg:first-child dd pre"],
    ["Allow once", ".run-approval .run-button.primary"],
    ["Don't allow", ".run-approval .run-button.danger"],
  ]) {
    assert.ok(await inView(selector), `${what} should be in view with the card (${selector})`);
  }
  assert.ok(!existsSync(summary), "nothing is written before the person allows it");

  // By then the reader's calls ran at once (the server marks them read-only): one
  // card per call in the reader's turn, none of them waiting.
  const reader = page.locator('.run-turn[aria-label="Reader\'s turn"]');
  const readerTools = await reader.locator(".run-tool summary").allTextContents();
  assert.deepEqual(
    readerTools.map((t) => t.trim()),
    ["Used files.list_directory", "Used files.read_text_file", "Used files.read_text_file", "Used files.read_text_file"],
    `the reader's calls: ${JSON.stringify(readerTools)}`,
  );
  const writerTools = await page.locator('.run-turn[aria-label="Writer\'s turn"] .run-tool summary').allTextContents();
  assert.deepEqual(writerTools, ["Used files.write_file — waits for you to allow it"]);
  await screenshots("1-approval", ".run-approval");

  // The card is worked by keyboard: Tab goes to the next choice, Shift+Tab back,
  // Enter allows once. (The zoom of the screenshots left the focus where it was.)
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), "Allow once", `the focus stayed on Allow once: ${await focused()}`);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), "Allow for this run");
  await page.keyboard.press("Shift+Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), "Allow once");
  await page.keyboard.press("Enter");

  // The run goes on and finishes; the file holds what the card showed, written by the server.
  await statusIs(page, /^Finished/);
  assert.equal(await status(), "Finished: Writer said [SUMMARY_DONE]");
  assert.equal(await card.count(), 0, "the card is gone once answered");
  assert.ok(existsSync(summary), `${summary} is written`);
  const written = await readFile(summary, "utf8");
  assert.equal(written, args.content, "the file holds the content the card showed");
  assert.match(written, /Open Shelf to the whole street on 14 April\./, "the script's summary");

  // The reader's card for meeting-notes.md, opened as a person would, holds the
  // document's real text (as the server read it, not the script's words).
  const index = await reader.locator(".run-tool").evaluateAll((tools) => tools.findIndex((t) => t.querySelector("pre")?.textContent.includes('"meeting-notes.md"')));
  assert.ok(index >= 0, "a card of the reader's read of meeting-notes.md");
  const read = reader.locator(".run-tool").nth(index);
  await read.locator("summary").click();
  const body = read.locator(".run-tool-body");
  await body.waitFor();
  const shown = await body.innerText();
  assert.match(shown, /Tom expects\s+it this week/, `the card shows the notes' text: ${shown.slice(0, 300)}`);
  assert.match(shown, /Actions: Tom gets the reminder emails working \(10 March\)/);
  await read.scrollIntoViewIfNeeded();
  await canvasAtRest("with the read opened");
  await drawn(page);
  await page.screenshot({ path: `${OUT}/browser-tools-2-read.png` });
  // The listing is the server's too: the three documents and the summaries folder.
  const listed = await reader.locator(".run-tool").first().locator(".run-tool-body pre").nth(1).textContent();
  for (const entry of ["[FILE] meeting-notes.md", "[FILE] pilot-feedback.md", "[FILE] product-brief.md", "[DIR] summaries"]) {
    assert.ok(listed.includes(entry), `the listing names ${entry}: ${listed}`);
  }

  // The write's card says it was allowed and what the server answered.
  const write = page.locator('.run-turn[aria-label="Writer\'s turn"] .run-tool');
  assert.equal((await write.locator("summary").innerText()).trim(), "Used files.write_file (allowed)");
  await write.locator("summary").click();
  await write.locator(".run-tool-body").waitFor();
  assert.match(await write.locator(".run-tool-body pre").nth(1).innerText(), /Successfully wrote to summaries\/summary\.md/);
  await write.scrollIntoViewIfNeeded();
  await screenshots("3-finished", '.run-turn[aria-label="Writer\'s turn"] .run-tool');
});

test("the page said nothing went wrong", () => {
  assert.deepEqual(complaints, []);
  assert.deepEqual(dialogs, []);
});
