// The figure a page opens with, drawn at build time by the browser's own renderer (figure/render/drawing.js) on a
// DOM shim (dom-shim.js), for the site builder's embedded V8 (kernelviz/site/figure_svg.py):
//   kvRenderFigure({scene, step, width, height}) -> JSON of the <svg> markup of `scene` at step `step`, fitted to a
//   canvas of width × height px, as the Figure draws it (its first figure: grid pattern kv-grid-1).
// The scene is one the Scene checker accepted (check-scene.js).
import { documentShim, container, markup } from './dom-shim.js';
import { Drawing } from '../figure/render/drawing.js';
import { Timeline } from '../figure/timeline.js';
import { nodesById } from '../figure/values.js';

globalThis.document = documentShim;

globalThis.kvRenderFigure = ({ scene, step, width, height }) => {
  const box = container();
  const drawing = new Drawing(box, 'kv-grid-1', scene, nodesById(scene));
  if (drawing.bound) {
    const timeline = new Timeline(drawing.bound.items, drawing.steps);
    drawing.bound.items = timeline.state(Math.min(step, timeline.last));
  }
  drawing.fit(width, height);
  drawing.redraw(width, height);
  const svg = drawing.canvas.svg;
  svg.setAttribute('data-prerendered', '');
  return JSON.stringify(markup(svg));
};
