// Scripts the end-to-end tests run inside the page, shared by the window's tests
// (WebDriver: `session.execute(SCRIPT)`) and the browser's (playwright:
// `page.evaluate(asExpression(SCRIPT))`).

/** From now on, records in `window.__active` every agent card that becomes active,
 * in order (the name of each, once per turn). */
export const RECORD_ACTIVE = `
  window.__active = [];
  const note = () => {
    for (const name of document.querySelectorAll('.agent-card.run-active .agent-name')) {
      if (window.__active[window.__active.length - 1] !== name.textContent) window.__active.push(name.textContent);
    }
  };
  window.__observer?.disconnect();
  window.__observer = new MutationObserver(note);
  window.__observer.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'] });
  note();`;

/** A script's statements as one expression, for playwright's `page.evaluate`. */
export const asExpression = (script) => `(() => {${script}\n})()`;
