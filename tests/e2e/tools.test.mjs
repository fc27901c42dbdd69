// End-to-end test of tools in the window (issue 17), run by run-window.sh: a person
// adds a tool server in Settings (npm's server-filesystem, installed by make test in
// .tools/mcp), checks it, picks its write_file tool in an agent's form, saves, runs
// the crew in Simulate with a scripted call of it, sees the card that asks for
// approval (focus on it, the arguments readable), allows it, and sees the call in the
// transcript with the real result — the file written.
//
// Screenshots: target/e2e/tools-*.png (Settings with the server checked, the picker,
// the approval card, the finished run), each also at 200 % zoom (tools-*-200.png).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chooseSimulate, forgetLayout, openCrew } from "./app.mjs";
import { Session } from "./webdriver.mjs";

const DRIVER = process.env.TAURI_DRIVER_URL ?? "http://127.0.0.1:4444";
const APP = process.env.CREWGRAPH_APP;
const OUT = process.env.E2E_OUT ?? "target/e2e";
const HOOK = "window.crewgraph && window.crewgraph.runId";
const RUN = ".run-buttons .run-button:nth-child(1)";
const CONTROL = "\uE009";
const FILESYSTEM = resolve(new URL("../../.tools/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url).pathname);
let session;
let work;
let notes;

before(async () => {
  assert.ok(APP, "CREWGRAPH_APP must be set (run-window.sh)");
  assert.ok(existsSync(FILESYSTEM), `${FILESYSTEM} is missing: run scripts/install-mcp-servers.sh (make test does)`);
  work = await mkdtemp(join(tmpdir(), "crewgraph-tools-"));
  notes = join(work, "notes");
  await mkdir(join(work, "scripts"), { recursive: true });
  await mkdir(notes);
  await writeFile(
    join(work, "notes-desk.yaml"),
    `version: "1.0"
name: Notes desk
entry_point: writer
agents:
  - id: writer
    name: Writer
    role: Writes the summary down
    is_terminal: true
`,
  );
  await writeFile(
    join(work, "scripts", "notes-desk.yaml"),
    `replies:
  writer:
    - { content: "Writing the summary.", tool_calls: [{ name: files.write_file, arguments: { path: "${join(notes, "summary.md")}", content: "Fractions: 1/2 + 1/4 = 3/4" } }] }
    - "The summary is written."
`,
  );
  session = await Session.start(DRIVER, { browserName: "wry", "tauri:options": { application: APP } });
  session.evidenceDir = OUT;
  session.evidencePrefix = "tools-";
  await session.call("POST", "/window/rect", { width: 1440, height: 900 });
  await session.waitFor(() => session.execute(`return Boolean(${HOOK})`), { message: "the window" });
  await forgetLayout(session);
});

after(async () => {
  await forgetLayout(session).catch(() => {});
  await session?.end();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Clicks the button of `scope` whose text is `text`. */
async function press(scope, text) {
  await session.waitFor(
    () =>
      session.execute(
        `const b = [...document.querySelectorAll(arguments[0] + ' button')].find((b) => b.textContent.trim() === arguments[1] && !b.disabled);
         if (b) { b.scrollIntoView({ block: "nearest" }); b.click(); } return Boolean(b);`,
        [scope, text],
      ),
    { message: `the button "${text}" in ${scope}` },
  );
}

const drawn = () =>
  session.call("POST", "/execute/async", { script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));", args: [] });

/** A screenshot as it is and one at 200 % zoom (the page drawn twice as large, as a
 * person who needs large text sees it), `selector` scrolled into view in both. */
async function screenshots(name, selector) {
  const show = () => session.execute(`const e = document.querySelector(arguments[0]); if (e) e.scrollIntoView({ block: "center" });`, [selector]);
  await show();
  await drawn();
  await session.screenshot(`${OUT}/tools-${name}.png`);
  await session.execute(`document.documentElement.style.zoom = "2"`);
  try {
    await show();
    await drawn();
    await session.screenshot(`${OUT}/tools-${name}-200.png`);
  } finally {
    await session.execute(`document.documentElement.style.zoom = ""`);
    await drawn();
  }
}

test("a tool server added in Settings, its tool picked in the form, a call approved in the card, the real result in the transcript", async () => {
  // Settings → Tool servers: a program with its arguments, one per line.
  await session.click(".sidebar-bottom .sidebar-item");
  await session.waitFor(() => session.execute(`const s = document.querySelector('.settings-tools form'); if (s) s.scrollIntoView({ block: "start" }); return Boolean(s);`), {
    message: "Settings' tool servers",
  });
  await session.type('.settings-tools form input:not([type="radio"])', "files");
  await session.type(".settings-tools form .field:nth-of-type(2) input", "node");
  // (Enter between the two lines: WebDriver types "\n" as no key.)
  await session.type(".settings-tools form textarea", `${FILESYSTEM}\uE007${notes}`);
  // (A variable row, left empty: it is not sent. Shown for the screenshots.)
  await press(".settings-tools form", "Add variable");
  await screenshots("0-add-form", ".settings-tools form .field:nth-of-type(2)");
  await press(".settings-tools form", "Add");
  await session.waitFor(async () => (await session.texts('.settings-tools [data-server="files"] strong')).includes("files"), { message: "the server in the list" });
  await press('.settings-tools [data-server="files"]', "Check");
  await session.waitFor(async () => /Running · \d+ tools: .*write_file/.test((await session.texts('.settings-tools [data-server="files"]'))[0] ?? ""), {
    timeout: 90_000,
    message: async () => `the check to list its tools (it says: ${JSON.stringify(await session.texts('.settings-tools [data-server="files"]'))})`,
  });
  await screenshots("1-settings", '.settings-tools [data-server="files"]');
  await press(".settings-dialog .dialog-actions", "Done");
  await session.waitFor(async () => (await session.find(".settings-dialog")).length === 0, { message: "Settings closed" });

  // The writer's form: the picker, write_file ticked.
  await openCrew(session, join(work, "notes-desk.yaml"), { ready: HOOK });
  // (Clicked again until the form shows: the canvas may still be finding its fit.)
  await session.waitFor(
    async () => {
      if ((await session.find('.ins-panel[aria-label="Agent Writer"]')).length > 0) return true;
      await session.click('.react-flow__node[data-id="agent:writer"]');
      await drawn();
      return (await session.find('.ins-panel[aria-label="Agent Writer"]')).length > 0;
    },
    { message: "the writer's form" },
  );
  await session.waitFor(
    () =>
      session.execute(
        `const d = [...document.querySelectorAll('.ins-panel details')].find((d) => d.querySelector('summary').textContent.startsWith('Choose from the tools')); if (d) { d.open = true; d.dispatchEvent(new Event('toggle')); } return Boolean(d);`,
      ),
    { message: "the tool picker" },
  );
  const box = '.ins-tool-group input[type="checkbox"]';
  await session.waitFor(
    () =>
      session.execute(
        `const b = [...document.querySelectorAll(arguments[0])].find((b) => b.parentElement.textContent.trim() === 'write_file'); if (b) { b.scrollIntoView({ block: "center" }); b.click(); } return Boolean(b);`,
        [box],
      ),
    { timeout: 90_000, message: async () => `write_file in the picker (it shows: ${JSON.stringify(await session.texts(".ins-tools"))})` },
  );
  await session.waitFor(async () => (await session.execute(`return [...document.querySelectorAll('.ins-panel .ins-chip')].map((c) => c.textContent).join(' ')`)).includes("files.write_file"), {
    message: async () => `the tool among the agent's (the form says: ${JSON.stringify(await session.texts(".ins-panel"))})`,
  });
  await screenshots("2-picker", ".ins-tools");
  await session.keys(CONTROL, "s");
  await session.waitFor(async () => (await readFile(join(work, "notes-desk.yaml"), "utf8")).includes("files.write_file"), { message: "the crew saved with its tool" });
  // A tool of a server in Settings is no unknown tool to the crew.
  await session.waitFor(async () => /^Ready to run$/.test((await session.texts(".crew-status"))[0]?.trim() ?? ""), {
    message: async () => `no warning about the tool (the status: ${JSON.stringify(await session.texts(".crew-status"))})`,
  });

  // Simulate with the crew's script: the call waits for the person, in a card that has the focus.
  await chooseSimulate(session, "notes-desk.yaml");
  await session.type(".run-input", "Write the summary of the notes");
  await session.click(RUN);
  await session.visible(".run-approval");
  const card = (await session.texts(".run-approval"))[0];
  assert.match(card, /Writer wants to use “write file” from files/);
  assert.equal((await session.texts(".run-status"))[0], "Paused: Writer waits for you to allow files.write_file");
  // (The graph shows an update a frame after the run dock: store.ts, `graph`.)
  await session.waitFor(async () => (await session.find(".react-flow__node .run-waiting")).length > 0, { message: "the card waiting" });
  assert.equal((await session.find(".react-flow__node .run-waiting")).length, 1, "the card waits, not the Wait node");
  assert.match(card, /Fractions: 1\/2 \+ 1\/4 = 3\/4/);
  assert.equal(await session.execute(`return document.activeElement && document.activeElement.textContent.trim()`), "Allow once", "the focus is on the card");
  assert.ok(!existsSync(join(notes, "summary.md")), "nothing written before the person allows it");
  await screenshots("3-approval", ".run-approval");
  await press(".run-approval", "Allow once");

  // The real result: the file is written, the transcript has the call and its answer.
  await session.waitFor(async () => /^Finished/.test((await session.texts(".run-status"))[0] ?? ""), {
    timeout: 120_000,
    message: async () => `the run to finish (it says: ${JSON.stringify(await session.texts(".run-status"))})`,
  });
  assert.equal(await readFile(join(notes, "summary.md"), "utf8"), "Fractions: 1/2 + 1/4 = 3/4");
  const used = (await session.texts(".run-tool summary")).join("\n");
  assert.match(used, /Used files\.write_file \(allowed\)/);
  await session.execute(`document.querySelector('.run-tool').open = true`);
  assert.match((await session.texts(".run-tool .run-tool-body"))[0], /Successfully wrote/i);
  await screenshots("4-finished", ".run-tool");

  // The server is not left for the tests after this one.
  await session.click(".sidebar-bottom .sidebar-item");
  await session.waitFor(() => session.execute(`const s = document.querySelector('.settings-tools'); if (s) s.scrollIntoView({ block: "start" }); return Boolean(s);`), {
    message: "Settings' tool servers",
  });
  await press('.settings-tools [data-server="files"]', "Remove");
  await session.waitFor(async () => (await session.find('.settings-tools [data-server="files"]')).length === 0, { message: "the server removed" });
  await press(".settings-dialog .dialog-actions", "Done");
});
