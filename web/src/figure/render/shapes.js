// The basic nodes: text, rectangle and point (a scalar is not drawn; it is a value others refer to). Each view
// keeps its element and re-reads its node's Values on `update(byId, unit, minFont)` (labels at least minFont px), so when a point or scalar changes, everything that
// refers to it follows. A visible point is handed to `drag(element, id)`, which makes it draggable (see draggable).
import { num, pos, text } from '../values.js';
import { setLabel } from './label.js';
import { el, paint, px, set, setBox } from '../../lib/svg.js';

function textView(node, parent) {
  const label = el('text', { class: 'kv-text' }, parent);
  return {
    update(byId, unit, minFont = 0) {
      const size = Math.max(px(num(node.size, byId)), minFont);
      setLabel(label, text(node.label, byId), num(node.x, byId) * unit, -num(node.y, byId) * unit, size, 0);
      paint(label, 'fill', node.fill);
      paint(label, 'stroke', node.stroke === node.fill ? null : node.stroke);
    },
  };
}

function rectangleView(node, parent) {
  const rect = el('rect', { class: 'kv-rectangle' }, parent);
  return {
    update(byId, unit) {
      const [x, y] = pos(node.corner, byId);
      setBox(rect, x, y, num(node.w, byId), num(node.h, byId), unit);
      paint(rect, 'fill', node.fill);
      paint(rect, 'stroke', node.stroke);
    },
  };
}

function pointView(node, parent, drag) {
  if (node.hidden) return null;
  const dot = el('circle', { class: 'kv-point', r: 6, tabindex: 0, 'aria-label': `point ${node.id}` }, parent);
  drag(dot, node.id);
  return {
    update(byId, unit) {
      set(dot, 'cx', px(num(node.x, byId) * unit));
      set(dot, 'cy', px(-num(node.y, byId) * unit));
    },
  };
}

const VIEWS = { text: textView, rectangle: rectangleView, point: pointView };

/** A view of `node` drawn into `parent`, or null for nodes that draw nothing here (scalars, hidden points; the
 * diagram and step list have views of their own). */
export function shapeView(node, parent, drag) {
  const make = VIEWS[node.kind];
  return make ? make(node, parent, drag) : null;
}

/** Make `target` draggable: pointer moves call onMove(clientX, clientY); arrow keys nudge by (dx, dy) units. */
export function draggable(target, onMove, onNudge) {
  target.addEventListener('pointerdown', (down) => {
    down.preventDefault();
    target.setPointerCapture(down.pointerId);
    target.classList.add('kv-dragging');
    const move = (e) => onMove(e.clientX, e.clientY);
    const up = () => {
      target.classList.remove('kv-dragging');
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
  });
  const keys = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  target.addEventListener('keydown', (e) => {
    if (!keys[e.key]) return;
    e.preventDefault();
    e.stopPropagation();
    const step = e.shiftKey ? 1 : 0.1;
    onNudge(keys[e.key][0] * step, keys[e.key][1] * step);
  });
}
