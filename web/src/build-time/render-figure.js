// The figure a page opens with, drawn at build time by the browser's own renderer (figure/render/drawing.js) and
// controls (figure/ui/: the canvas settings, the step list, the figure's tools) on a DOM shim (dom-shim.js), for
// the site builder's embedded V8 (kernelviz/site/figure_svg.py):
//   kvRenderFigure({scene, step, width, height, title}) -> JSON of {svg, settings, dock}: the markup of the <svg> of
//   `scene` at step `step`, fitted to a canvas of width × height px, as the Figure draws it (its first figure: grid
//   pattern kv-grid-1), of its settings panel (folded, as a reader first sees it), and of its dock (the step list and the
//   figure's tools, when the scene has one); each marked data-prerendered. `title`, the page's, names the drawing.
// The scene is one the Scene checker accepted (check-scene.js). The page shows these until its runtime starts,
// which takes the SVG's elements over and puts its own controls in the places of these, at the same size.
import { documentShim, container, markup } from './dom-shim.js';
import { Drawing } from '../figure/render/drawing.js';
import { Timeline } from '../figure/timeline.js';
import { FigureTools } from '../figure/ui/figure-tools.js';
import { Follow } from '../figure/ui/follow.js';
import { SettingsPanel } from '../figure/ui/settings-panel.js';
import { StepList } from '../figure/ui/step-list.js';
import { zoomButtons } from '../figure/ui/zoom.js';
import { nodesById } from '../figure/values.js';

globalThis.document = documentShim;
documentShim.activeElement = null;
documentShim.body = container();
globalThis.getComputedStyle = () => ({ color: '' }); // no colour is resolved: the runtime shows the real one
globalThis.requestAnimationFrame = () => 0;

/** A player that stays on step `current`: what the step list needs to draw itself. */
const stillPlayer = (current) => ({ current, on() {} });

globalThis.kvRenderFigure = ({ scene, step, width, height, title }) => {
  globalThis.document = documentShim; // its own: other build-time bundles in the same V8 set theirs
  documentShim.querySelector = (selector) => (selector === 'h1' && title ? { textContent: title } : null);
  const box = container();
  const drawing = new Drawing(box, 'kv-grid-1', scene, nodesById(scene));
  let shown = 0;
  if (drawing.bound) {
    const timeline = new Timeline(drawing.bound.items, drawing.steps);
    shown = Math.min(step, timeline.last);
    drawing.bound.items = timeline.state(shown);
  }
  drawing.fit(width, height);
  const settings = drawing.redraw(width, height);
  const host = container();
  const panel = new SettingsPanel(host, () => {});
  panel.show(settings);
  const dock = container();
  dock.setAttribute('class', 'kv-dock');
  if (drawing.steps) {
    const list = new StepList(stillPlayer(shown), drawing.steps, box, dock);
    new FigureTools(list.bar, {}, new Follow()); // (never pressed at build time)
    list.scrubber.root.append(...zoomButtons());
  }
  const parts = { svg: drawing.canvas.svg, settings: panel.root, dock };
  for (const part of Object.values(parts)) part.setAttribute('data-prerendered', '');
  return JSON.stringify(Object.fromEntries(Object.entries(parts).map(([name, el]) => [name, markup(el)])));
};
