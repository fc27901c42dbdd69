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
    const path = `${this.evidenceDir}/timeout-${++this.timeouts}.png`;
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
