// A Diagram node: one <g data-item="i"> per item, in order. An item is a box (x, y) bottom-left, w × h, drawn as a
// <rect> with its label centred in it; a box of size 0 draws only its label at (x, y); a `line` item is a segment
// from (x, y) to (x + w, y + h). `font` is px (at least the `minFont` drawn with, so that a figure zoomed out stays
// legible); `wrap` > 0 wraps the label at that many canvas units. A box's label fits the box (label.js).
// `draw(items)` touches only the items whose object changed since the last draw, and only the attributes that
// changed, reusing elements, so a frame of an animation costs what moves in it. Colours may be palette names ("@q",
// see paint). An item's `kv` names what it shows for the page: its <text> carries it as data-kv (e.g. the HBM
// counter, data-kv="hbm-bytes"); a slot's facts (`kv` "slot:" + its fields, kernelviz/figlib/answers.py) go on
// its <g> instead, as data-slot, for the figure's answers (../ui/answers.js) to read.
import { setLabel } from './label.js';
import { el, paint, px, set, setBox } from '../../lib/svg.js';

function show(node, visible) {
  set(node, 'display', visible ? null : 'none');
}

export class DiagramView {
  constructor(parent, count) {
    this.root = el('g', { class: 'kv-diagram' }, parent);
    this.parts = Array.from({ length: count }, (_, i) => ({ g: el('g', { 'data-item': i }, this.root) }));
    this.drawn = [];
    this.scale = null;
  }

  /** Draw `items` at `unit` px per canvas unit, labels at least `minFont` px. */
  draw(items, unit, minFont = 0) {
    const all = unit !== this.scale?.unit || minFont !== this.scale?.minFont;
    this.scale = { unit, minFont };
    for (let i = 0; i < items.length; i++) {
      if (!all && items[i] === this.drawn[i]) continue;
      this.drawn[i] = items[i];
      this.drawItem(this.parts[i], items[i], unit, minFont);
    }
  }

  shape(part, tag) {
    part[tag] ||= el(tag, {}, part.g, part.g.firstChild);
    return part[tag];
  }

  drawItem(part, it, unit, minFont) {
    const isBox = !it.line && (it.w !== 0 || it.h !== 0);
    if (it.line) {
      const line = this.shape(part, 'line');
      set(line, 'x1', px(it.x * unit));
      set(line, 'y1', px(-it.y * unit));
      set(line, 'x2', px((it.x + it.w) * unit));
      set(line, 'y2', px(-(it.y + it.h) * unit));
      paint(line, 'stroke', it.stroke);
      show(line, it.stroke !== 'none');
    } else if (part.line) {
      show(part.line, false);
    }
    if (isBox) {
      const rect = this.shape(part, 'rect');
      setBox(rect, it.x, it.y, it.w, it.h, unit);
      paint(rect, 'fill', it.fill);
      paint(rect, 'stroke', it.stroke);
      show(rect, it.fill !== 'none' || it.stroke !== 'none');
    } else if (part.rect) {
      show(part.rect, false);
    }
    const slot = it.kv?.startsWith('slot:') ? it.kv.slice(5) : null;
    set(part.g, 'data-slot', slot);
    if (it.label || (it.kv && !slot)) part.text ||= el('text', {}, part.g);
    if (it.label) {
      const [cx, cy] = [(it.x + it.w / 2) * unit, -(it.y + it.h / 2) * unit];
      const box = isBox ? [Math.abs(it.w * unit), Math.abs(it.h * unit)] : null;
      setLabel(part.text, it.label, cx, cy, Math.max(it.font, minFont), it.wrap * unit, box, minFont);
      paint(part.text, 'fill', it.color);
      show(part.text, true);
    } else if (part.text) {
      show(part.text, false);
    }
    if (part.text) set(part.text, 'data-kv', slot ? null : (it.kv ?? null));
  }
}
