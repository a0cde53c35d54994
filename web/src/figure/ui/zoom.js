// Zoom and pan: the reader's magnifier over the fitted figure (a lens: `scale` ≥ 1 and `pan`, screen px of the
// drawing's centre from the canvas's). The page keeps scrolling: the wheel zooms with Ctrl (a trackpad's pinch sends
// that) and, once zoomed in, pans without it; two fingers pinch and move it; one finger or the mouse drags it while
// zoomed in. Keys on the focused canvas: + and − zoom, 0 resets, Shift with an arrow pans (the arrows alone walk the
// slots: ui/hover.js). The buttons − ⟲ + sit in the scrubber's row (zoomButtons, drawn at build time too). Labels keep
// their least size on screen as the drawing grows (render/drawing.js: the lens divides the least font), so that
// zooming in opens up a dense figure instead of only magnifying its overlaps.
//
//   new Zoom(box, changed): `changed()` redraws; lens() -> {scale, pan} or null at 1×.
import { h } from '../../lib/dom.js';

export const MAX_SCALE = 8;
const STEP = 1.5; // a key or a button zooms by this much
const PAN_PX = 40; // Shift + an arrow pans this far

/** The row's zoom buttons (inert: Zoom.bind gives them their work). */
export function zoomButtons() {
  const button = (cls, label, text) => h('button', { type: 'button', class: `kv-zoom ${cls}`, 'aria-label': label, title: label }, text);
  return [button('kv-zoom-out', 'Zoom out', '−'), button('kv-zoom-reset', 'Reset the zoom', '⟲'), button('kv-zoom-in', 'Zoom in', '+')];
}

export class Zoom {
  constructor(box, changed) {
    Object.assign(this, { box, changed });
    this.scale = 1;
    this.pan = [0, 0];
    this.pointers = new Map(); // pointerId -> [x, y] of the pointers down on the canvas
    box.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    box.addEventListener('pointerdown', (e) => this.down(e));
    box.addEventListener('pointermove', (e) => this.move(e));
    for (const end of ['pointerup', 'pointercancel', 'pointerleave']) box.addEventListener(end, (e) => this.pointers.delete(e.pointerId));
    this.touch();
  }

  lens() {
    return this.scale === 1 && this.pan[0] === 0 && this.pan[1] === 0 ? null : { scale: this.scale, pan: this.pan };
  }

  /** Make the buttons of `row` (zoomButtons) work, and the keys of `svg`. */
  bind(row, svg) {
    row.addEventListener('click', (e) => {
      const b = e.target.closest?.('.kv-zoom');
      if (!b) return;
      if (b.classList.contains('kv-zoom-in')) this.by(STEP);
      else if (b.classList.contains('kv-zoom-out')) this.by(1 / STEP);
      else this.reset();
    });
    if (svg && !svg.$zoom) {
      svg.$zoom = true;
      svg.addEventListener('keydown', (e) => this.key(e));
    }
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const arrows = { ArrowLeft: [PAN_PX, 0], ArrowRight: [-PAN_PX, 0], ArrowUp: [0, PAN_PX], ArrowDown: [0, -PAN_PX] };
    if (e.key === '+' || e.key === '=') this.by(STEP);
    else if (e.key === '-' || e.key === '−') this.by(1 / STEP);
    else if (e.key === '0') this.reset();
    else if (e.shiftKey && arrows[e.key]) this.moveBy(...arrows[e.key]);
    else return;
    e.preventDefault();
  }

  /** Zoom by `factor` about the point `at` (client px; by default the canvas's centre). */
  by(factor, at = null) {
    const scale = Math.min(MAX_SCALE, Math.max(1, this.scale * factor));
    const r = this.box.getBoundingClientRect();
    const p = at ? [at[0] - r.left - r.width / 2, at[1] - r.top - r.height / 2] : [0, 0];
    const k = scale / this.scale;
    this.scale = scale;
    this.setPan(p[0] - (p[0] - this.pan[0]) * k, p[1] - (p[1] - this.pan[1]) * k);
  }

  moveBy(dx, dy) {
    this.setPan(this.pan[0] + dx, this.pan[1] + dy);
  }

  reset() {
    this.scale = 1;
    this.setPan(0, 0);
  }

  /** Pan to (x, y), kept so that the drawing still covers the canvas's centre. */
  setPan(x, y) {
    const r = this.box.getBoundingClientRect();
    const [mx, my] = [((this.scale - 1) * r.width) / 2, ((this.scale - 1) * r.height) / 2];
    this.pan = [Math.max(-mx, Math.min(mx, x)), Math.max(-my, Math.min(my, y))];
    this.box.dataset.zoom = String(Math.round(this.scale * 100) / 100);
    this.touch();
    this.changed();
  }

  /** One finger scrolls the page at 1×; zoomed in, it pans the figure. */
  touch() {
    this.box.style.touchAction = this.scale > 1 ? 'none' : 'pan-x pan-y';
  }

  wheel(e) {
    if (e.ctrlKey) this.by(Math.exp(-e.deltaY / 200), [e.clientX, e.clientY]);
    else if (this.scale > 1) this.moveBy(-e.deltaX, -e.deltaY);
    else return; // the page scrolls
    e.preventDefault();
  }

  down(e) {
    if (e.pointerType === 'mouse' && (e.button !== 0 || this.scale === 1)) return;
    if (e.target.closest?.('circle, .kv-answer')) return; // a point drags itself
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
  }

  move(e) {
    const was = this.pointers.get(e.pointerId);
    if (!was) return;
    const now = [e.clientX, e.clientY];
    if (this.pointers.size === 2) {
      const other = [...this.pointers].find(([id]) => id !== e.pointerId)[1];
      const spread = (a) => Math.hypot(a[0] - other[0], a[1] - other[1]) || 1;
      const mid = [(now[0] + other[0]) / 2, (now[1] + other[1]) / 2];
      this.by(spread(now) / spread(was), mid);
      this.moveBy((now[0] - was[0]) / 2, (now[1] - was[1]) / 2);
    } else if (this.pointers.size === 1 && this.scale > 1) {
      this.moveBy(now[0] - was[0], now[1] - was[1]);
    }
    this.pointers.set(e.pointerId, now);
  }
}
