// The SVG canvas: `unit` user px per canvas unit, y up, a background of `canvasColor` and a grid line every unit at
// `gridOpacity`. Nodes draw into `layer` in user px with y down: canvas (x, y) is user (x·unit, −y·unit). The
// viewBox fits the drawing to the box (a zoom and a centre, from fit.js), moved `originX` px right and `originY` px
// up on screen.
import { el, paint, px, set } from '../../lib/svg.js';

/** The font of every label; wrapping measures text in it. */
export const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', sans-serif";

export class Canvas {
  /** An SVG in `host`; `id` names its grid pattern, unique in the page. */
  constructor(host, id) {
    this.svg = el('svg', { class: 'kv-svg', role: 'img', 'aria-label': 'Figure', 'font-family': FONT_FAMILY }, host);
    const defs = el('defs', {}, this.svg);
    this.pattern = el('pattern', { id, patternUnits: 'userSpaceOnUse', x: 0, y: 0 }, defs);
    this.gridPath = el('path', { class: 'kv-grid-line', fill: 'none' }, this.pattern);
    this.background = el('rect', { class: 'kv-background' }, this.svg);
    this.grid = el('rect', { class: 'kv-grid', fill: `url(#${id})` }, this.svg);
    this.layer = el('g', { class: 'kv-nodes' }, this.svg);
  }

  /**
   * Lay out for `settings` in a box of `width` × `height` px, showing the drawing as `view` says (fit.js): `zoom`
   * screen px per user px, centred on `centre` (user px at `view.unit`; a reader's other unit scales the drawing
   * about that centre), then moved `originX` px right and `originY` px up.
   */
  layout(settings, width, height, view = { zoom: 1, centre: [0, 0], unit: settings.unit }) {
    const { unit, gridOpacity, canvasColor, originX, originY } = settings;
    const { zoom } = view;
    const scale = unit / view.unit;
    const left = px(view.centre[0] * scale - (width / 2 + originX) / zoom);
    const top = px(view.centre[1] * scale - (height / 2 - originY) / zoom);
    const [w, h] = [px(width / zoom), px(height / zoom)];
    set(this.svg, 'viewBox', `${left} ${top} ${w} ${h}`);
    for (const node of [this.background, this.grid]) {
      set(node, 'x', left);
      set(node, 'y', top);
      set(node, 'width', w);
      set(node, 'height', h);
    }
    paint(this.background, 'fill', canvasColor);
    set(this.pattern, 'width', unit);
    set(this.pattern, 'height', unit);
    set(this.gridPath, 'd', `M ${unit} 0 L 0 0 0 ${unit}`);
    set(this.grid, 'opacity', gridOpacity);
    set(this.grid, 'display', gridOpacity > 0 && unit >= 4 ? null : 'none');
  }

  /** Canvas units of a pointer at (clientX, clientY), for a canvas of `unit` px per unit. */
  toCanvas(clientX, clientY, unit) {
    const matrix = this.svg.getScreenCTM().inverse();
    const p = new DOMPoint(clientX, clientY).matrixTransform(matrix);
    return [p.x / unit, -p.y / unit];
  }

  remove() {
    this.svg.remove();
  }
}
