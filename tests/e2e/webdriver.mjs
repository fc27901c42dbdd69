// A tiny W3C WebDriver client over fetch (no npm packages), for tauri-driver, and
// `waitFor`: the one way the end-to-end tests wait — for a condition, polled, with a
// generous bound, never for a fixed time (on a machine busy with other builds every
// step is slower, and a test must come out the same, only later).
import { writeFile } from "node:fs/promises";

/** How long a wait lasts before it fails, unless told otherwise. */
export const WAIT = 60_000;

/** A wait that ran out of time (its message says what was awaited). */
export class TimeoutError extends Error {}

/** The WebDriver server refused a command (no such element, a stale one, a page
 * that is reloading…): while polling, that means "not yet". */
export class WebDriverError extends Error {}

/** Polls `condition()` until it answers something truthy, and returns that. After
 * `timeout` ms it throws a TimeoutError saying what was awaited: `message`, or what
 * `message()` answers then (so it can show the state it last saw). A WebDriverError
 * while polling counts as "not yet"; any other error is a mistake, thrown at once. */
export async function waitFor(condition, { timeout = WAIT, message = "a condition", interval = 150 } = {}) {
  const deadline = Date.now() + timeout;
  let refused = null;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
      refused = null;
    } catch (error) {
      if (!(error instanceof WebDriverError)) throw error;
      refused = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, interval));
  }
  const what = typeof message === "function" ? await Promise.resolve().then(message).catch((e) => `that (and then: ${e.message})`) : message;
  throw new TimeoutError(`timed out after ${timeout / 1000} s waiting for ${what}${refused ? ` (the last poll was refused: ${refused.message})` : ""}`);
}

/** Waits until `read()` answers the same value twice in a row, `interval` ms apart —
 * a view that has stopped gliding, a layout that has stopped moving — and returns
 * it. A falsy answer means "not yet". */
export async function waitForStable(read, { timeout = WAIT, message = "a value to settle", interval = 250 } = {}) {
  let last = "null";
  const settled = await waitFor(
    async () => {
      const value = await read();
      const now = value ? JSON.stringify(value) : "null";
      const same = now !== "null" && now === last;
      last = now;
      return same && { value };
    },
    { timeout, interval, message: typeof message === "function" ? message : () => `${message} (last read: ${last.slice(0, 300)})` },
  );
  return settled.value;
}

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

// The elements matching a selector that a person can see: laid out with a size, not
// hidden by any ancestor, inside the window, and not covered by something else at
// their centre. (WebKitWebDriver's own "displayed" check calls every
// `text-overflow: ellipsis` text hidden, so it cannot be used here.) `SHOWN` answers
// the elements themselves (as WebDriver references), `VISIBLE_TEXTS` their texts.
const SHOWN_ELEMENTS = `
  const [css] = arguments;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    if (r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight) return false;
    for (let n = el; n; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.visibility === "hidden" || s.display === "none" || s.opacity === "0") return false;
    }
    const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
    const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
    const top = document.elementFromPoint(x, y);
    return !!top && (el.contains(top) || top.contains(el));
  };
  const found = [...document.querySelectorAll(css)].filter(shown);`;
const SHOWN = `${SHOWN_ELEMENTS}\n  return found;`;
const VISIBLE_TEXTS = `${SHOWN_ELEMENTS}\n  return found.map((el) => el.innerText.trim());`;
/** The shown elements that take input: not disabled. */
const SHOWN_ENABLED = `${SHOWN_ELEMENTS}\n  return found.filter((el) => !el.disabled && !el.closest("fieldset:disabled"));`;

export class Session {
  constructor(url, id) {
    this.url = url;
    this.id = id;
    /** Where a wait that times out leaves a screenshot of the window (unset: none). */
    this.evidenceDir = null;
    this.timeouts = 0;
  }

  static async start(url, capabilities) {
    const value = await request(url, "POST", "/session", { capabilities: { alwaysMatch: capabilities } });
    const session = new Session(url, value.sessionId);
    // A script that waits (a measurement over frames) may take long on a busy machine.
    await session.call("POST", "/timeouts", { script: 5 * WAIT });
    return session;
  }

  call(method, path, body) {
    return request(this.url, method, `/session/${this.id}${path}`, body);
  }

  async end() {
    await this.call("DELETE", "");
  }

  /** Runs a script in the page and returns its result. */
  execute(script, args = []) {
    return this.call("POST", "/execute/sync", { script, args });
  }

  async find(css) {
    const found = await this.call("POST", "/elements", { using: "css selector", value: css });
    return found.map((element) => element[ELEMENT]);
  }

  /** The elements matching `css` that a person can see (ids, in document order). */
  async shown(css) {
    return (await this.execute(SHOWN, [css])).map((element) => element[ELEMENT]);
  }

  /** The texts of the elements matching `css` that are visible on screen. */
  texts(css) {
    return this.execute(VISIBLE_TEXTS, [css]);
  }

  /** Waits until `condition()` answers truthy (see `waitFor`); a timeout's message
   * names a screenshot of the window as it was. */
  async waitFor(condition, options = {}) {
    try {
      return await waitFor(condition, options);
    } catch (error) {
      if (error instanceof TimeoutError) error.message += await this.evidence();
      throw error;
    }
  }

  /** Waits until `read()` answers the same value twice in a row (see `waitForStable`). */
  async waitForStable(read, options = {}) {
    try {
      return await waitForStable(read, options);
    } catch (error) {
      if (error instanceof TimeoutError) error.message += await this.evidence();
      throw error;
    }
  }

  /** Waits until at least `count` elements matching `css` are visible with text
   * (React Flow keeps nodes hidden until it has measured them); returns the visible
   * ones' ids. */
  async visible(css, { count = 1, timeout = WAIT } = {}) {
    let last = [];
    await this.waitFor(
      async () => {
        last = await this.texts(css);
        return last.filter((t) => t).length >= count;
      },
      { timeout, message: () => `${count} visible '${css}' (visible texts: ${JSON.stringify(last)})` },
    );
    return this.shown(css);
  }

  /** Clicks the first element matching `css` that a person can see and that is not
   * disabled, once there is one (a click on a disabled button would be lost). A
   * click the driver refuses (the element was redrawn meanwhile, or something
   * passing over it took the click) is tried again. */
  async click(css, { timeout = WAIT } = {}) {
    await this.waitFor(
      async () => {
        const [element] = (await this.execute(SHOWN_ENABLED, [css])).map((e) => e[ELEMENT]);
        if (!element) return false;
        await this.call("POST", `/element/${element}/click`, {});
        return true;
      },
      { timeout, message: `something to click at '${css}' (shown, enabled, and taking the click)` },
    );
  }

  /** Types `text` into the field matching `css` (after clearing it when `clear`),
   * once one is shown and enabled. */
  async type(css, text, { clear = true, timeout = WAIT } = {}) {
    const [element] = await this.waitFor(async () => {
      const found = (await this.execute(SHOWN_ENABLED, [css])).map((e) => e[ELEMENT]);
      return found.length ? found : null;
    }, { timeout, message: `a field at '${css}' (shown and enabled)` });
    if (clear) await this.call("POST", `/element/${element}/clear`, {});
    await this.call("POST", `/element/${element}/value`, { text });
  }

  /** Presses and holds the mouse on the centre of `fromCss`, moves it in steps to
   * the centre of `toCss` (or by `{x, y}` from the start) and lets go: a real drag.
   * Both ends are waited for (shown on screen) first. */
  async drag(fromCss, to) {
    const [from] = await this.waitFor(async () => {
      const found = await this.shown(fromCss);
      return found.length ? found : null;
    }, { message: `something to drag at '${fromCss}'` });
    const origin = (id) => ({ [ELEMENT]: id });
    const steps = [{ type: "pointerMove", duration: 0, origin: origin(from), x: 0, y: 0 }, { type: "pointerDown", button: 0 }];
    if (typeof to === "string") {
      const [target] = await this.waitFor(async () => {
        const found = await this.shown(to);
        return found.length ? found : null;
      }, { message: `somewhere to drop at '${to}'` });
      steps.push({ type: "pointerMove", duration: 150, origin: origin(from), x: 12, y: 6 });
      steps.push({ type: "pointerMove", duration: 300, origin: origin(target), x: 4, y: 2 });
      steps.push({ type: "pointerMove", duration: 100, origin: origin(target), x: 0, y: 0 });
    } else {
      steps.push({ type: "pointerMove", duration: 150, origin: "pointer", x: Math.round(to.x / 3), y: Math.round(to.y / 3) });
      steps.push({ type: "pointerMove", duration: 300, origin: "pointer", x: to.x - Math.round(to.x / 3), y: to.y - Math.round(to.y / 3) });
    }
    steps.push({ type: "pointerUp", button: 0 });
    await this.call("POST", "/actions", { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: steps }] });
    await this.call("DELETE", "/actions");
  }

  /** Clicks the element matching `css` while holding `key` (a WebDriver key code:
   * "\uE009" Control, "\uE008" Shift). The key goes down first; the click is sent
   * only once the page has seen it (not in the same breath, where a busy page may
   * take the click before the key), and the key is let go after. */
  async clickWith(css, key) {
    const [element] = await this.waitFor(async () => {
      const found = (await this.execute(SHOWN_ENABLED, [css])).map((e) => e[ELEMENT]);
      return found.length ? found : null;
    }, { message: `something to click at '${css}'` });
    const name = MODIFIERS[key];
    if (!name) throw new Error(`clickWith: no modifier named by ${JSON.stringify(key)}`);
    await this.execute(`
      window.__modifiers = new Set();
      window.__onModifier ??= (event) => window.__modifiers?.add(event.key);
      window.addEventListener("keydown", window.__onModifier, true);`);
    try {
      await this.call("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value: key }] }] });
      await this.waitFor(() => this.execute("return window.__modifiers.has(arguments[0])", [name]), { message: `the page to see ${name} held down` });
      await this.call("POST", "/actions", {
        actions: [
          {
            type: "pointer",
            id: "mouse",
            parameters: { pointerType: "mouse" },
            actions: [
              { type: "pointerMove", duration: 0, origin: { [ELEMENT]: element }, x: 0, y: 0 },
              { type: "pointerDown", button: 0 },
              { type: "pointerUp", button: 0 },
            ],
          },
        ],
      });
    } finally {
      await this.call("DELETE", "/actions"); // lets go of the key
      await this.execute(`window.removeEventListener("keydown", window.__onModifier, true);`).catch(() => {});
    }
  }

  /** Presses keys (WebDriver key codes: "\uE009" is Control) together, then lets go. */
  async keys(...keys) {
    const down = keys.map((value) => ({ type: "keyDown", value }));
    const up = [...keys].reverse().map((value) => ({ type: "keyUp", value }));
    await this.call("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: [...down, ...up] }] });
  }

  /** After a timeout: a screenshot of the window as it was, named in the error. */
  async evidence() {
    if (!this.evidenceDir) return "";
    const path = `${this.evidenceDir}/${this.evidencePrefix ?? ""}timeout-${++this.timeouts}.png`;
    try {
      await this.screenshot(path);
      return `; the window then: ${path}`;
    } catch (e) {
      return `; no screenshot: ${e.message}`;
    }
  }

  /** A screenshot of the window, to `path` (PNG). WebKitWebDriver takes it at the
   * page's next paint after it was asked; a window painted whole (no compositing:
   * painting.rs) and at rest paints nothing, and the screenshot would wait until
   * something moved. So while it is taken, the page paints one pixel in its corner
   * every 50 ms, from transparent to all but transparent (no colour a PNG can tell),
   * which shows in no screenshot. */
  async screenshot(path) {
    await this.execute(NUDGE_PAINTS, [true]);
    try {
      const png = await this.call("GET", "/screenshot");
      await writeFile(path, Buffer.from(png, "base64"));
    } finally {
      await this.execute(NUDGE_PAINTS, [false]).catch(() => {});
    }
  }
}

/** Starts (`arguments[0]` true) or stops the page painting a pixel every 50 ms
 * (Session.screenshot). */
const NUDGE_PAINTS = `
  clearInterval(window.__e2eNudge);
  document.getElementById("e2e-paint-nudge")?.remove();
  if (!arguments[0]) return;
  const pixel = document.createElement("div");
  pixel.id = "e2e-paint-nudge";
  pixel.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;z-index:2147483647";
  document.documentElement.append(pixel);
  let on = false;
  window.__e2eNudge = setInterval(() => {
    on = !on;
    pixel.style.background = on ? "rgba(255, 255, 255, 0.001)" : "transparent";
  }, 50);`;

/** The modifier keys `clickWith` holds, by WebDriver key code: their `event.key`. */
const MODIFIERS = { "\uE008": "Shift", "\uE009": "Control", "\uE00A": "Alt", "\uE03D": "Meta" };

async function request(url, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new WebDriverError(`${method} ${path}: ${response.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}
