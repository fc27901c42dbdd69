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

/** Chooses Simulate in the run panel's model list, as a person picking it would (the
 * change event React listens to); false while the list does not offer it yet. */
export const CHOOSE_SIMULATE = `
  const select = document.querySelector('.run-select');
  const option = select && [...select.options].find((o) => o.textContent.startsWith('Simulate'));
  if (!option) return false;
  Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, option.value);
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return true;`;

/** A script's statements as one expression, for playwright's `page.evaluate`. */
export const asExpression = (script) => `(() => {${script}\n})()`;

/** Measures the canvas's frame rate while it is zoomed (a wheel notch a frame, in
 * and out) or panned (a drag of the pane), about 180 frames or 8 s, whichever comes
 * first — but at least 30 frames (within a minute), so a slow machine gives slow
 * figures, not none. Runs with `zoomed` (a boolean) and `done` (called with the
 * median and 95th-percentile frame, in ms, and how many frames) in scope: see
 * `measureCanvasIn` (WebDriver's async script) and the browser's `page.evaluate`. */
export const MEASURE_CANVAS = `
  const pane = document.querySelector('.react-flow__pane');
  const box = pane.getBoundingClientRect();
  // (With its view: d3's drag reads the window from the event.)
  const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, view: window };
  const frames = [];
  let last = performance.now();
  let step = 0;
  const started = performance.now();
  const tick = (now) => {
    frames.push(now - last);
    last = now;
    step += 1;
    if (zoomed) {
      pane.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: step % 40 < 20 ? -40 : 40, bubbles: true, cancelable: true }));
    } else {
      const dx = step % 60 < 30 ? 8 : -8;
      pane.dispatchEvent(new MouseEvent('mousedown', { ...at, button: 0, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mousemove', { ...at, clientX: at.clientX + dx, buttons: 1, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mouseup', { ...at, clientX: at.clientX + dx, bubbles: true }));
    }
    const elapsed = now - started;
    if ((step < 180 && elapsed < 8000) || (step < 30 && elapsed < 60000)) requestAnimationFrame(tick);
    else {
      const sorted = frames.slice(1).sort((a, b) => a - b);
      done({ median: sorted[Math.floor(sorted.length / 2)], p95: sorted[Math.floor(sorted.length * 0.95)], frames: sorted.length });
    }
  };
  requestAnimationFrame(tick);`;

/** Zooms the canvas in, towards the middle of the pane, until cards are readable
 * (the view's scale 0.9 or more). */
export const ZOOM_TO_CARDS = `
  const pane = document.querySelector('.react-flow__pane');
  const box = pane.getBoundingClientRect();
  const zoom = () => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
  for (let i = 0; i < 80 && zoom() < 0.9; i++)
    pane.dispatchEvent(new WheelEvent('wheel', { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, deltaY: -300, bubbles: true, cancelable: true }));`;
