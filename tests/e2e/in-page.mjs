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

/** Where the canvas is: the view's transform and each drawn node's box on screen —
 * or null while React Flow's view is gliding (d3 keeps a running transition on the
 * zoom pane as `__transition`, from the moment it is asked to move to the end of the
 * last frame). Read twice a moment apart and the same, the canvas is at rest: no
 * glide, no layout still moving the cards. */
export const CANVAS_STATE = `
  const pane = document.querySelector('.react-flow__renderer');
  const viewport = document.querySelector('.react-flow__viewport');
  if (!pane || !viewport || pane.__transition) return null;
  const nodes = [...document.querySelectorAll('.react-flow__node')].map((node) => {
    const r = node.getBoundingClientRect();
    return [node.getAttribute('data-id'), Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height), getComputedStyle(node).visibility];
  });
  return { transform: viewport.style.transform, nodes };`;

/** A script's statements as one expression, for playwright's `page.evaluate`. */
export const asExpression = (script) => `(() => {${script}\n})()`;
