// What the browser tests (run by run-browser.sh) do the same way, written once:
// Chromium started through playwright-core (the UI's dev dependency) with a page of
// 1400×900 whose every wait is as generous as the window's, and a watch on that page
// — what it says went wrong, and the dialogs it opens — so a test file can end by
// checking the page complained of nothing.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { WAIT } from "./webdriver.mjs";

// playwright-core is the UI's dev dependency: resolve it from ui/node_modules.
const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Starts Chromium with one watched page of 1400×900. Answers the browser (close it
 * in `after`), the page, and its watch: `complaints` (uncaught errors, console
 * errors: none expected), `dialogs` (the ones no test expected, dismissed) and
 * `expectDialog(type, answer)`, which answers the next dialog of `type` with
 * `answer` (a text for a prompt, true to accept, false to dismiss) and resolves to
 * its message (rejects when none came within WAIT). */
export async function startChromium() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Every wait of playwright's (a locator, a function, a navigation) as generous as
  // the window's: a busy machine makes the test slower, not red.
  page.setDefaultTimeout(WAIT);
  return { browser, page, ...watchPage(page) };
}

/** Notes a page's errors, answers the dialogs tests expect and dismisses the others. */
function watchPage(page) {
  const complaints = [];
  const dialogs = [];
  const expected = [];
  page.on("pageerror", (error) => complaints.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") complaints.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("dialog", async (dialog) => {
    const next = expected[0];
    if (!next || next.type !== dialog.type()) {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      await dialog.dismiss();
      return;
    }
    expected.shift();
    next.seen(dialog.message());
    if (next.answer === false) await dialog.dismiss();
    else await dialog.accept(typeof next.answer === "string" ? next.answer : undefined);
  });
  const expectDialog = (type, answer) =>
    new Promise((seen, fail) => {
      const timer = setTimeout(() => fail(new Error(`no ${type} dialog came within ${WAIT / 1000} s`)), WAIT);
      expected.push({ type, answer, seen: (message) => (clearTimeout(timer), seen(message)) });
    });
  return { complaints, dialogs, expectDialog };
}

/** Waits until the run's status (its text in the page) matches `pattern`. */
export const statusIs = (page, pattern) =>
  page.waitForFunction((source) => new RegExp(source).test(document.querySelector(".run-status")?.textContent ?? ""), pattern.source);

/** Opens the run panel when it is folded and picks Simulate mode, which picks the
 * script that comes with the open crew: waits until the panel names `script`. */
export async function chooseSimulate(page, script) {
  if ((await page.locator('.run-dock-toggle[aria-expanded="false"]').count()) > 0) await page.click('.run-dock-toggle[aria-expanded="false"]');
  const simulate = await page.locator(".run-select option").evaluateAll((options) => options.find((o) => o.textContent.startsWith("Simulate"))?.value);
  assert.ok(simulate !== undefined, "the model list offers Simulate");
  await page.selectOption(".run-select", simulate);
  await page.waitForFunction((name) => [...document.querySelectorAll(".run-script-name")].some((n) => n.textContent === name), script);
}

/** Waits until the page as it is now has been drawn (two frames), so a screenshot shows it. */
export const drawn = (page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));

/** A screenshot as the page is (1400×900, `${path}.png`) and one at 200 % zoom
 * (`${path}-200.png`), as a person who needs large text sees it, with `scrollTo` (a
 * selector) scrolled into view in the zoomed one as they would scroll to it; `settle`
 * waits until the page is at rest before each. The zoom is the browser's own (Ctrl +):
 * the same window, its page laid out at 700×450 and drawn two pixels to one. (CSS
 * `zoom` on the page, as the window's tests must use, throws off where React Flow
 * measures the cards' handles, so the arrows were drawn from the wrong places for
 * the rest of the page's life.) */
export async function screenshotsAtTwoSizes(page, path, { scrollTo, settle = async () => {} } = {}) {
  await settle("as the page is");
  await drawn(page);
  await page.screenshot({ path: `${path}.png` });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setDeviceMetricsOverride", { width: 700, height: 450, deviceScaleFactor: 2, mobile: false });
  try {
    await page.waitForFunction(() => innerWidth === 700 && devicePixelRatio === 2);
    if (scrollTo) await page.evaluate((s) => document.querySelector(s)?.scrollIntoView({ block: "nearest" }), scrollTo);
    await settle("at 200 %");
    await drawn(page);
    // (Taken by Chromium itself: playwright's screenshot would put back its own viewport first.)
    const { data } = await cdp.send("Page.captureScreenshot", { format: "png" });
    await writeFile(`${path}-200.png`, Buffer.from(data, "base64"));
  } finally {
    // Back to the page's own size (playwright's viewport).
    await cdp.send("Emulation.clearDeviceMetricsOverride");
    await cdp.detach();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.waitForFunction(() => innerWidth === 1400 && devicePixelRatio === 1);
    await drawn(page);
  }
}

