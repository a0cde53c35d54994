// The drawing of a Scene: its Canvas, a view per node, and the diagram its first step list plays on, fitted to a
// box of a given size and drawn. The Figure draws with it in the browser; the site builder draws with it at build
// time (web/src/build-time/render-figure.js), so the SVG a page opens with is the one the Figure would draw.
import { Canvas } from './canvas.js';
import { DiagramView } from './diagram.js';
import { fit } from './fit.js';
import { shapeView } from './shapes.js';
import { settingsOf } from '../values.js';

/** The fitted `view` seen through `lens` (see Drawing.redraw). */
function lensed(view, lens) {
  if (!lens) return view;
  const zoom = view.zoom * lens.scale;
  const centre = [view.centre[0] - lens.pan[0] / zoom, view.centre[1] - lens.pan[1] / zoom];
  return { ...view, zoom, centre, minFont: view.minFont / lens.scale };
}

export class Drawing {
  /** Views of `model`'s nodes (`byId`: its nodes by id) on a new Canvas in `box`, its grid pattern named `gridId`;
   * `drag(element, id)` makes a visible point draggable. `bound` is the diagram the first step list plays on ({view,
   * items}; null without a step list) and `steps` that list's steps. */
  constructor(box, gridId, model, byId, drag = () => {}) {
    this.model = model;
    this.byId = byId;
    this.canvas = new Canvas(box, gridId);
    const list = model.nodes.find((n) => n.kind === 'step_list');
    this.steps = list ? list.steps : null;
    const boundId = list ? list.figure.ref : null;
    this.playsOn = (id) => (id === boundId ? this.steps : null); // the steps that play on diagram `id`
    this.views = [];
    this.diagrams = [];
    this.bound = null;
    for (const node of model.nodes) {
      if (node.kind === 'diagram') {
        const view = new DiagramView(this.canvas.layer, node.items.length);
        this.diagrams.push({ view, items: node.items });
        if (node.id === boundId) this.bound = this.diagrams.at(-1);
      } else {
        const view = shapeView(node, this.canvas.layer, drag);
        if (view) this.views.push(view);
      }
    }
  }

  settings() {
    return settingsOf(this.model, this.byId);
  }

  /** Fit the drawing, at every step, to a canvas of `width` × `height` px (fit.js). */
  fit(width, height) {
    const { unit } = this.settings();
    const view = fit(this.model, this.byId, unit, width, height, this.playsOn);
    this.view = { ...view, unit, minFont: Math.ceil(view.minFont * 100) / 100 };
  }

  /** Lay out the canvas at `width` × `height` px and draw every node from the model; returns the settings. `lens`
   * ({scale, pan: [x, y] screen px}, the reader's zoom: ui/zoom.js; null: none) magnifies the fitted view about the
   * canvas's centre and moves it, the least font divided by its scale, so that labels keep their least size on screen. */
  redraw(width, height, lens = null) {
    const settings = this.settings();
    this.shown = lensed(this.view, lens);
    const { minFont } = this.shown;
    this.canvas.layout(settings, width, height, this.shown);
    for (const view of this.views) view.update(this.byId, settings.unit, minFont);
    for (const d of this.diagrams) d.view.draw(d.items, settings.unit, minFont);
    return settings;
  }

  /** Draw the bound diagram's `items` (a state of its step list). */
  drawBound(items) {
    this.bound.items = items;
    this.bound.view.draw(items, this.settings().unit, (this.shown ?? this.view).minFont);
  }

  remove() {
    this.canvas.remove();
  }
}
