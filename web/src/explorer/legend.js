// What the canvas's looks mean, beside it: coloured = on chip (SRAM) now, dim = in HBM, dashed = used by this block
// and dropped, dotted = skipped by the causal mask. Each swatch is drawn with the canvas's own look and `box`, so
// the legend cannot drift from the drawing. Each entry carries data-look (the canvas tiles' data-look).
import { box, dim, masked, resident, visitedLook } from './canvas.js';
import { h } from '../lib/dom.js';
import { el } from '../lib/svg.js';

const ENTRIES = [
  [resident('Q', false), 'coloured: on chip (SRAM) now'],
  [dim, 'dim: in HBM'],
  [visitedLook('S'), 'dashed: used by this block, then dropped'],
  [masked, 'dotted: skipped (causal mask)'],
];

function swatch(look) {
  const icon = el('svg', { width: 22, height: 14, viewBox: '0 0 22 14', 'aria-hidden': 'true' });
  icon.append(box(1, 1, 21, 13, look));
  return icon;
}

/** The legend: {element, update(state)} (the causal entry shows only with causal masking). */
export function buildLegend() {
  const items = ENTRIES.map(([look, text]) => {
    const item = h('li', { 'data-look': look.kind }, [swatch(look)]);
    item.append(text);
    return item;
  });
  const element = h('ul', { class: 'kvx-legend', 'aria-label': 'What the colours mean' }, items);
  return {
    element,
    update(state) {
      items[3].hidden = !state.causal;
    },
  };
}
