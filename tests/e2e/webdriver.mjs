// A tiny W3C WebDriver client over fetch (no npm packages), for tauri-driver.
import { writeFile } from "node:fs/promises";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

// The texts of the elements matching a selector that a person can see: laid out
// with a size, not hidden by any ancestor, inside the window, and not covered by
// something else at their centre. (WebKitWebDriver's own "displayed" check calls
// every `text-overflow: ellipsis` text hidden, so it cannot be used here.)
const VISIBLE_TEXTS = `
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
  return [...document.querySelectorAll(css)].filter(shown).map((el) => el.innerText.trim());`;

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
    return new Session(url, value.sessionId);
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

  async click(css) {
    const [element] = await this.waitFor(css);
    await this.call("POST", `/element/${element}/click`, {});
  }

  /** Types `text` into the element matching `css` (after clearing it when `clear`). */
  async type(css, text, { clear = true } = {}) {
    const [element] = await this.until(`a field at '${css}'`, async () => {
      const found = await this.find(css);
      return found.length ? found : null;
    });
    if (clear) await this.call("POST", `/element/${element}/clear`, {});
    await this.call("POST", `/element/${element}/value`, { text });
  }

  /** Presses and holds the mouse on the centre of `fromCss`, moves it in steps to
   * the centre of `toCss` (or by `{x, y}` from the start) and lets go: a real drag. */
  async drag(fromCss, to) {
    const [from] = await this.find(fromCss);
    if (!from) throw new Error(`nothing to drag at '${fromCss}'${await this.evidence()}`);
    const origin = (id) => ({ [ELEMENT]: id });
    const steps = [{ type: "pointerMove", duration: 0, origin: origin(from), x: 0, y: 0 }, { type: "pointerDown", button: 0 }];
    if (typeof to === "string") {
      const [target] = await this.find(to);
      if (!target) throw new Error(`nowhere to drop at '${to}'${await this.evidence()}`);
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

  /** Clicks the element matching `css` while holding `key` (Control, Shift). */
  async clickWith(css, key) {
    const [element] = await this.find(css);
    if (!element) throw new Error(`nothing to click at '${css}'${await this.evidence()}`);
    await this.call("POST", "/actions", {
      actions: [
        { type: "key", id: "keyboard", actions: [{ type: "keyDown", value: key }, { type: "pause", duration: 0 }, { type: "pause", duration: 0 }, { type: "pause", duration: 0 }, { type: "keyUp", value: key }] },
        {
          type: "pointer",
          id: "mouse",
          parameters: { pointerType: "mouse" },
          actions: [
            { type: "pause", duration: 0 },
            { type: "pointerMove", duration: 0, origin: { [ELEMENT]: element }, x: 0, y: 0 },
            { type: "pointerDown", button: 0 },
            { type: "pointerUp", button: 0 },
            { type: "pause", duration: 0 },
          ],
        },
      ],
    });
    await this.call("DELETE", "/actions");
  }

  /** Presses keys (WebDriver key codes: "\uE009" is Control) together, then lets go. */
  async keys(...keys) {
    const down = keys.map((value) => ({ type: "keyDown", value }));
    const up = [...keys].reverse().map((value) => ({ type: "keyUp", value }));
    await this.call("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions: [...down, ...up] }] });
  }

  /** The texts of the elements matching `css` that are visible on screen. */
  texts(css) {
    return this.execute(VISIBLE_TEXTS, [css]);
  }

  /** Waits until at least `count` elements matching `css` are visible with text
   * (React Flow keeps nodes hidden until it has measured them). */
  async waitFor(css, { timeout = 15000, count = 1 } = {}) {
    const deadline = Date.now() + timeout;
    let last = [];
    while (Date.now() < deadline) {
      last = await this.texts(css);
      if (last.filter((t) => t).length >= count) return this.find(css);
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`timed out waiting for ${count} visible '${css}' (visible texts: ${JSON.stringify(last)})${await this.evidence()}`);
  }

  /** Waits until `predicate()` resolves truthy. */
  async until(what, predicate, timeout = 15000) {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      const value = await predicate();
      if (value) return value;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`timed out waiting for ${what}${await this.evidence()}`);
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

  async screenshot(path) {
    const png = await this.call("GET", "/screenshot");
    await writeFile(path, Buffer.from(png, "base64"));
  }
}

async function request(url, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}
