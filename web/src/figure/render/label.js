// A text label of the canvas: centred on a point, one line or wrapped into tspans. Always text, never markup.
// A label that names a box fits it, for any Scene: drawn as asked when it fits; else wrapped between words at the
// box's width; else shrunk, never below the smallest legible size; else turned a quarter (a tall, narrow box);
// else not shown (data-fit="hidden": the text stays in the SVG, invisible), since a box too small for its name is
// one of a row or a stack of such boxes, which a label moved out of it would print over (the tensor's name, the
// step's caption say what they are). The <text> says which with data-fit: fits, wrap, shrink, turn, hidden.
// `fitLabel` is the rule; `setLabel` draws what it gives.
import { el, px, set } from '../../lib/svg.js';
import { measure, wrapLines } from './wrap.js';

const LINE_EM = 1.2;
const PAD = 1; // px between a label and its box's edge, on each side
const GLYPH_EM = 1.15; // the height of one line of glyphs as drawn (ascent and descent), in em

function linesOf(label, wrapPx, font) {
  return wrapPx > 0 || label.includes('\n') ? wrapLines(label, wrapPx, font) : [label];
}

/** [width, height] px of `lines` at `font` px. */
function sizeOf(lines, font) {
  const height = ((lines.length - 1) * LINE_EM + GLYPH_EM) * font;
  return [Math.max(...lines.map((line) => measure(line, font))), height];
}

/** [width, height] px of `label` at `font` px, wrapped at `wrapPx` (0: only at its own line breaks). */
export function labelSize(label, font, wrapPx) {
  const lines = linesOf(label, wrapPx, font);
  return [Math.max(...lines.map((line) => measure(line, font))), lines.length * LINE_EM * font];
}

/**
 * How `label` fits a box of `boxW` × `boxH` px at `font` px (never under `floor` px), wrapped at `wrapPx` when the
 * Scene asks: {lines, font, fit: 'fits' | 'wrap' | 'shrink' | 'turn' | 'hidden'}. Without a box (0 × 0) it is drawn as
 * asked.
 */
export function fitLabel(label, font, wrapPx, boxW = 0, boxH = 0, floor = 0) {
  const asked = linesOf(label, wrapPx, font);
  if (!(boxW > 0 && boxH > 0)) return { lines: asked, font, fit: 'fits' };
  const [W, H] = [boxW - 2 * PAD, boxH - 2 * PAD];
  const inside = (lines, size, w = W, h = H) => {
    const [lw, lh] = sizeOf(lines, size);
    return lw <= w && lh <= h;
  };
  if (inside(asked, font)) return { lines: asked, font, fit: 'fits' };
  const wrapped = wrapLines(label, W, font);
  if (inside(wrapped, font)) return { lines: wrapped, font, fit: 'wrap' };
  const least = Math.min(Math.max(floor, 1), font);
  const [lw, lh] = sizeOf(asked, font);
  const shrunk = font * Math.min(W / lw, H / lh);
  if (shrunk >= least) return { lines: asked, font: Math.floor(shrunk * 100) / 100, fit: 'shrink' };
  const turned = Math.min(font * Math.min(H / lw, W / lh), font);
  if (H > W && turned >= least) return { lines: asked, font: Math.floor(turned * 100) / 100, fit: 'turn' };
  return { lines: asked, font: least, fit: 'hidden' };
}

/** Whether the <text> `node` shows `lines` already: one line as its text, or one <tspan> a line. */
function shows(node, lines) {
  const spans = node.children;
  if (lines.length === 1) return spans.length === 0 && node.textContent === lines[0];
  return spans.length === lines.length && lines.every((line, i) => spans[i].textContent === line);
}

/**
 * Show `label` in the <text> `node` centred at (cx, cy) px at `font` px; `wrapPx` > 0 wraps it at that width.
 * `box` [w, h] px: the box it names, which it fits (see fitLabel), never under `floor` px.
 */
export function setLabel(node, label, cx, cy, font, wrapPx, box = null, floor = 0) {
  const [boxW, boxH] = box || [0, 0];
  const key = `${label}|${font}|${wrapPx}|${boxW}|${boxH}|${floor}`;
  if (node.$text !== key) {
    node.$text = key;
    const fitted = fitLabel(label, font, wrapPx, boxW, boxH, floor);
    node.$fit = fitted;
    set(node, 'font-size', fitted.font);
    set(node, 'data-fit', box ? fitted.fit : null);
    const { lines } = fitted;
    if (shows(node, lines)) {
      // drawn already (at build time): left as it is
    } else if (lines.length === 1) {
      node.textContent = lines[0];
    } else {
      node.textContent = '';
      for (const [i, line] of lines.entries()) {
        el('tspan', { dy: `${i === 0 ? -((lines.length - 1) * LINE_EM) / 2 : LINE_EM}em` }, node).textContent = line;
      }
    }
  }
  const { fit } = node.$fit;
  set(node, 'x', px(cx));
  set(node, 'y', px(cy));
  set(node, 'visibility', fit === 'hidden' ? 'hidden' : null);
  set(node, 'transform', fit === 'turn' ? `rotate(-90 ${px(cx)} ${px(cy)})` : null);
  for (const span of node.children) set(span, 'x', px(cx));
}
