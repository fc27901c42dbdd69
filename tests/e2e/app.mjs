// What several window tests do the same way, written once: open a crew through the
// window's automation hook, choose Simulate for a run, and forget the panels' layout
// and paces the window remembers (so the next test file starts as a new window). Each waits for the state
// it leads to, with the suite's bound (see webdriver.mjs).
import assert from "node:assert/strict";
import { CHOOSE_SIMULATE } from "./in-page.mjs";

/** Opens a crew through the window's automation hook; waits until it is open (the
 * hook's promise answered) and its header shows. `ready` is the page expression that
 * says the hook is there (a test needing more of it names that part). */
export async function openCrew(session, path, { ready = "window.crewgraph" } = {}) {
  await session.waitFor(() => session.execute(`return Boolean(${ready})`), { message: "the automation hook" });
  await session.execute(
    `window.__opened = null;
     window.crewgraph.openCrew(arguments[0]).then(() => (window.__opened = "open"), (e) => (window.__opened = String(e)));`,
    [path],
  );
  assert.equal(await session.waitFor(() => session.execute("return window.__opened"), { message: `${path} to open` }), "open");
  await session.visible(".crew-header h1");
}

/** Unfolds the run panel (the window remembers how the person left it: it may be
 * open already), chooses Simulate in the model list (once the list offers it) and
 * waits until the crew's own script, `script`, is picked for it; with `pace`
 * ("instant", "readable", "step") its replies come at that pace. */
export async function chooseSimulate(session, script, { pace } = {}) {
  await unfoldRunPanel(session);
  await session.waitFor(() => session.execute(CHOOSE_SIMULATE), { message: "the model list to offer Simulate" });
  await session.waitFor(
    async () => {
      // (Below the model list: scrolled to in the run panel, as a person would.)
      await session.execute(`document.querySelector(".run-script-name")?.scrollIntoView({ block: "nearest" })`);
      return (await session.texts(".run-script-name")).includes(script);
    },
    { message: `the script ${script}` },
  );
  if (pace) await choosePace(session, pace);
}

/** Unfolds the run panel when it is folded. */
export async function unfoldRunPanel(session) {
  if ((await session.find('.run-dock-toggle[aria-expanded="false"]')).length) await session.click('.run-dock-toggle[aria-expanded="false"]');
  await session.visible('.run-dock-toggle[aria-expanded="true"]');
}

/** Chooses the pace of a scripted run: "instant", "readable" or "step". */
export async function choosePace(session, pace) {
  // (Below the model list: scrolled to in the run panel, as a person would.)
  await session.waitFor(() => session.execute(`const el = document.querySelector(arguments[0]); el?.scrollIntoView({ block: "nearest" }); return Boolean(el);`, [`.run-pace-choice[data-pace="${pace}"]`]), {
    message: `the pace ${pace} offered`,
  });
  await session.click(`.run-pace-choice[data-pace="${pace}"]`);
  await session.waitFor(() => session.execute(`return document.querySelector(arguments[0])?.getAttribute("aria-checked") === "true"`, [`.run-pace-choice[data-pace="${pace}"]`]), {
    message: `the pace ${pace} chosen`,
  });
}

/** Forgets what the window remembers of how its panels were left (the run dock
 * unfolded, their heights) and the crews' paces: a test that unfolded the run dock
 * leaves the next test file a window as new (call it in `after`). */
export function forgetLayout(session) {
  return session.execute(`localStorage.removeItem("crewgraph-layout"); localStorage.removeItem("crewgraph-pace");`);
}
