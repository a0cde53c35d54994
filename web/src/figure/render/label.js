// A text label of the canvas: centred on a point, one line or wrapped into tspans. Always text, never markup.
import { el, px, set } from './svg.js';
import { measure, wrapLines } from './wrap.js';

const LINE_EM = 1.2;

function linesOf(label, wrapPx, font) {
  return wrapPx > 0 || label.includes('\n') ? wrapLines(label, wrapPx, font) : [label];
}

/** [width, height] px of `label` at `font` px, wrapped at `wrapPx` (0: only at its own line breaks). */
export function labelSize(label, font, wrapPx) {
  const lines = linesOf(label, wrapPx, font);
  return [Math.max(...lines.map((line) => measure(line, font))), lines.length * LINE_EM * font];
}

/** Show `label` in the <text> `node` centred at (cx, cy) px; `wrapPx` > 0 wraps it at that width. */
export function setLabel(node, label, cx, cy, font, wrapPx) {
  set(node, 'x', px(cx));
  set(node, 'y', px(cy));
  set(node, 'font-size', font);
  const key = `${label}|${font}|${wrapPx}`;
  if (node.$text !== key) {
    node.$text = key;
    const lines = linesOf(label, wrapPx, font);
    if (lines.length === 1) {
      node.textContent = lines[0];
    } else {
      node.textContent = '';
      lines.forEach((line, i) => {
        const span = el('tspan', { dy: `${i === 0 ? -((lines.length - 1) * LINE_EM) / 2 : LINE_EM}em` }, node);
        span.textContent = line;
      });
    }
  }
  for (const span of node.children) set(span, 'x', px(cx));
}
