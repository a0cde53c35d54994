// What the canvas's looks mean, beside it: coloured = on chip (shared memory or registers) now, dim = in HBM,
// dashed = used by this block and dropped, dotted = skipped by the causal mask. Each swatch is drawn with the
// canvas's own look and `box`, so the legend cannot drift from the drawing. Each entry carries data-look (the canvas
// tiles' data-look).
import { box, dim, masked, resident, visitedLook } from './canvas.js';
import { h } from './dom.js';
import { el } from './svg.js';

const ENTRIES = [
  [resident('Q', false), 'coloured: on chip now (shared memory or registers)'],
  [dim, 'dim: in HBM'],
  [visitedLook('S'), 'dashed: used by this block, then dropped'],
  [masked, 'dotted: skipped (causal mask)'],
];

function swatch(look) {
  return el('svg', { width: 22, height: 14, viewBox: '0 0 22 14', 'aria-hidden': 'true' }, [box(1, 1, 21, 13, look)]);
}

/** The legend: {element, update(state)} (the causal entry shows only with causal masking). */
export function buildLegend() {
  const items = ENTRIES.map(([look, text]) => h('li', { 'data-look': look.kind }, [swatch(look), text]));
  const element = h('ul', { class: 'kvx-legend', 'aria-label': 'What the colours mean' }, items);
  return {
    element,
    update(state) {
      items[3].hidden = !state.causal;
    },
  };
}
