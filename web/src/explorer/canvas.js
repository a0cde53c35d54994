// The canvas: one query tile i against the K/V tiles, drawn as SVG.
//
//            K0 K1 K2 …          K tiles (HBM; Kj colored while in shared memory)
//      Q0  [ S grid: Tr × Tc ]  O0    the score tiles: Sij exists only in registers, one at a time
//      Q1  [                 ]  O1    Q and O tiles beside their row of S
//            V0 V1 V2 …          V tiles, under the K tile they pair with
//      [Qi|Kj|Vj]          |budget       the block's shared memory, to scale, against the budget
//      [Sij|Oi|m|l]              |file   its registers, on the same scale, against the register file
//
// Long sequences show a window of tiles around i and j, with gaps (⋯) for the rest. Colored = on chip now,
// dim = in HBM; dashed outlines mark tiles already visited by this block; causal masking leaves the skipped
// score tiles blank.

import { tiles_visited } from './formulas.js';
import { REGISTER_FILE_BYTES } from './budgets.js';
import { HBM, INK, MUTED, OVER, TILE, tileColor } from './palette.js';
import { append, prepend } from './adopt.js';
import { setText } from './dom.js';
import { el, label } from './svg.js';

const WIDEST = 640; // viewBox width on a wide screen; a narrow one gets a narrower box and fewer tiles
const NARROWEST = 330;
const GRID_X = 96;
const TOP = 34;
const STRIP = 26; // thickness of the K and V strips
const SIDE = 36; // width of the Q and O strips
const Q_X = 38;
const CELL_H = 30;
const GAP = 0.6; // width of a gap slot, in cells

/** At most `max` slots of tile indices 0..T-1: the focus, the ends, then neighbours; null marks a gap. */
export function windowIndices(T, focus, max = 9) {
  if (T <= max) return Array.from({ length: T }, (_, k) => k);
  const keep = new Set();
  for (const k of [focus, 0, T - 1, focus + 1, focus - 1, 1, 2, focus + 2, T - 2, 3, focus - 2, 4, 5]) {
    if (keep.size >= Math.max(max - 2, 3)) break; // room for up to two gaps
    if (k >= 0 && k < T) keep.add(k);
  }
  const sorted = [...keep].sort((a, b) => a - b);
  const out = [];
  sorted.forEach((k, n) => {
    if (n > 0 && k - sorted[n - 1] > 1) out.push(null);
    out.push(k);
  });
  return out;
}

/** Slot positions along one axis: [{index|null, at, size}] from `start`, cells of `cell` units. */
function slots(indices, start, cell) {
  let at = start;
  return indices.map((index) => {
    const size = index === null ? GAP * cell : cell;
    const slot = { index, at, size };
    at += size;
    return slot;
  });
}

export function box(x, y, w, h, { fill, stroke, width = 1, dash = null, opacity = 1 }) {
  return el('rect', {
    x,
    y,
    width: Math.max(w - 2, 1),
    height: Math.max(h - 2, 1),
    rx: 2,
    fill,
    stroke,
    'stroke-width': width,
    'stroke-dasharray': dash,
    opacity,
  });
}

/** A tile named `name` (data-tile), drawn with `look`; `text` (default: the name) is written in it if it fits. */
function tile(x, y, w, h, name, look, text = name) {
  const g = el('g', { 'data-tile': name, 'data-look': look.kind });
  append(g, box(x, y, w, h, look));
  const size = text ? Math.min(10, (w - 5) / (0.62 * text.length)) : 0; // shrink a long name to fit its box
  if (size >= 6) {
    const color = look.kind === 'hbm' ? HBM.text : INK;
    const at = { x: x + w / 2 - 1, y: y + h / 2 + size / 3, 'text-anchor': 'middle', 'font-size': size.toFixed(1) };
    append(g, label(text, { ...at, fill: color }));
  }
  return g;
}

// The looks of a tile, by what it means (legend.js explains each one with a swatch drawn by `box`).
export const dim = { kind: 'hbm', fill: HBM.fill, stroke: HBM.stroke };
export const masked = { kind: 'masked', fill: 'none', stroke: HBM.stroke, dash: '1 3', opacity: 0.6 }; // causal: skipped
export const resident = (role, active) => ({ kind: 'sram', ...TILE[role], width: active ? 2.5 : 1.5 });
export const visitedLook = (role) => ({ kind: 'visited', fill: HBM.fill, stroke: TILE[role].stroke, dash: '3 2' });

function gapMark(x, y, w, h, vertical) {
  return label(vertical ? '⋮' : '⋯', { x: x + w / 2, y: y + h / 2 + 4, 'text-anchor': 'middle', fill: MUTED });
}

/** The width of the drawing (its viewBox) on a canvas `width` px wide. */
export function canvasWidth(width = WIDEST) {
  return Math.round(Math.min(Math.max(width, NARROWEST), WIDEST));
}

/**
 * Draw the canvas for `view`: {state, Tr, Tc, visited (tile indices of i), budget (bytes), shared and registers
 * (blockSplit), fit and regFit (sram_fit of each)}, `width` px wide on screen (the drawing keeps its text readable
 * down to phone widths).
 * Returns the <svg>.
 */
export function drawCanvas(view, width = WIDEST) {
  const W = canvasWidth(width);
  const GRID_W = W - GRID_X - SIDE - 24;
  const { state, Tr, Tc, visited, fit, regFit, budget } = view;
  const { i, j, phase, N, Br, Bc, causal } = state;
  const last = visited.at(-1);
  const k = visited.indexOf(j);
  const isEarlier = (c) => phase > 0 && visited.indexOf(c) >= 0 && visited.indexOf(c) < k; // visited, evicted
  const written = phase === 3 && j === last; // Oi leaves for HBM after the last accumulate

  const rows = windowIndices(Tr, i);
  const cols = windowIndices(Tc, j, Math.max(4, Math.min(11, Math.floor(GRID_W / 48))));
  const units = (xs) => xs.reduce((n, x) => n + (x === null ? GAP : 1), 0);
  const cw = Math.min(60, GRID_W / units(cols));
  const rs = slots(rows, TOP + STRIP + 8, CELL_H);
  const cs = slots(cols, GRID_X, cw);
  const gridBottom = rs.at(-1).at + rs.at(-1).size;
  const gridRight = cs.at(-1).at + cs.at(-1).size;
  const vTop = gridBottom + 8;
  const sramTop = vTop + STRIP + 48;
  const H = sramTop + ROW + 58;

  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'kvx-svg', role: 'img' });
  const add = (node) => append(svg, node);
  const caption = (text, x, y, anchor = 'end') =>
    add(label(text, { x, y, 'text-anchor': anchor, 'font-size': 11, fill: MUTED }));

  caption('K', GRID_X - 10, TOP + STRIP / 2 + 4);
  caption('V', GRID_X - 10, vTop + STRIP / 2 + 4);
  caption('Q', Q_X + SIDE / 2, TOP + STRIP / 2 + 4, 'middle');
  caption('O', gridRight + 10 + SIDE / 2, TOP + STRIP / 2 + 4, 'middle');
  const sText =
    W < 480 ? `S: ${Tr} × ${Tc} tiles, never stored` : `S = QKᵀ: ${Tr} × ${Tc} tiles of ${Br}×${Bc}, never stored`;
  caption(sText, 40, vTop + STRIP + 18, 'start');

  for (const c of cs) {
    if (c.index === null) {
      add(gapMark(c.at, TOP, c.size, STRIP));
      add(gapMark(c.at, vTop, c.size, STRIP));
      continue;
    }
    const now = c.index === j && phase > 0;
    const seen = isEarlier(c.index);
    let kLook = seen || (now && phase === 3) ? visitedLook('K') : dim;
    if (now && phase < 3) kLook = resident('K', true);
    const vLook = now && phase === 3 ? resident('V', true) : seen ? visitedLook('V') : dim;
    add(tile(c.at, TOP, c.size, STRIP, `K${c.index}`, kLook));
    add(tile(c.at, vTop, c.size, STRIP, `V${c.index}`, vLook));
  }

  for (const r of rs) {
    if (r.index === null) {
      add(gapMark(Q_X, r.at, SIDE, r.size, true));
      add(gapMark(gridRight + 10, r.at, SIDE, r.size, true));
      add(gapMark(GRID_X, r.at, gridRight - GRID_X, r.size, true));
      continue;
    }
    const mine = r.index === i;
    add(tile(Q_X, r.at, SIDE, r.size, `Q${r.index}`, mine ? resident('Q', phase === 0) : dim));
    const oLook = mine && written ? { kind: 'written', ...TILE.O, width: 2.5 } : dim;
    add(tile(gridRight + 10, r.at, SIDE, r.size, `O${r.index}`, oLook));
    const seenByRow = tiles_visited(r.index, N, Br, Bc, null, causal);
    for (const c of cs) {
      if (c.index === null) continue;
      const current = mine && c.index === j && phase > 0;
      let look = dim;
      if (causal && c.index >= seenByRow) look = masked;
      else if (current) look = resident('S', true);
      else if (mine && isEarlier(c.index)) look = visitedLook('S');
      add(tile(c.at, r.at, c.size, r.size, `S${r.index},${c.index}`, look, current ? undefined : ''));
    }
    if (mine) add(rowOutline(r, gridRight));
  }

  const scale = (W - 80) / Math.max(fit.total, budget, regFit.total, REGISTER_FILE_BYTES);
  const at = { phase, scale, W };
  add(drawOnChip('Shared memory of one block', view.shared, fit, budget, 'budget', { ...at, top: sramTop }));
  const file = 'register file';
  add(drawOnChip('Its registers', view.registers, regFit, REGISTER_FILE_BYTES, file, { ...at, top: sramTop + ROW }));
  svg.setAttribute('aria-label', describe(view, written));
  return svg;
}

/** The dashed outline around query tile i's row: Qi, its score tiles and Oi. */
function rowOutline(r, gridRight) {
  const width = gridRight + 10 + SIDE + 2 - (Q_X - 4);
  const look = { fill: 'none', stroke: TILE.Q.stroke, 'stroke-width': 1, 'stroke-dasharray': '6 3', rx: 4 };
  return el('rect', { x: Q_X - 4, y: r.at - 2, width, height: r.size + 2, ...look, 'data-row': 'i' });
}

// Which tiles of the block each phase works on (the rest stay allocated, drawn lighter).
const ACTIVE = [['Qi', 'mi', 'li', 'Oi'], ['Qi', 'Kj', 'Sij'], ['Sij', 'mi', 'li'], ['Sij', 'Vj', 'Oi']];

const ROW = 66; // height of one row of the on-chip drawing: its caption, the tiles, the limit's name

/** One on-chip memory of the block to scale (`scale` units a byte): one segment per tile, `limit` as a line named
 * `limitName`; tiles past it dashed red. */
function drawOnChip(title, tiles, fit, limit, limitName, { phase, scale, W, top }) {
  const g = el('g', { class: 'kvx-sram' });
  const x0 = 40;
  append(g, label(title, { x: x0, y: top - 8, 'font-size': 11, fill: MUTED }));
  let x = x0;
  for (const [name, bytes] of Object.entries(tiles)) {
    const w = bytes * scale;
    const over = fit.over.includes(name);
    const color = tileColor(name);
    const active = ACTIVE[phase].includes(name);
    const look = over
      ? { kind: 'over', ...OVER, width: 2, dash: '4 2' }
      : { kind: 'sram', fill: color.fill, stroke: color.stroke, width: active ? 2.5 : 1, opacity: active ? 1 : 0.55 };
    const seg = tile(x, top, w + 1, 28, name, look);
    seg.setAttribute('data-sram', name);
    prepend(seg, titled(`${name}: ${bytes} bytes${over ? `, past the ${limitName}` : ''}`));
    append(g, seg);
    x += w;
  }
  const bx = x0 + limit * scale;
  append(g, el('line', { x1: bx, x2: bx, y1: top - 4, y2: top + 34, stroke: INK, 'stroke-width': 1.5 }));
  const anchor = bx > W - 60 ? 'end' : bx < 80 ? 'start' : 'middle'; // keep the words inside the drawing
  append(g, label(limitName, { x: bx, y: top + 46, 'text-anchor': anchor, 'font-size': 10, fill: INK }));
  return g;
}

function titled(text) {
  const t = el('title');
  setText(t, text);
  return t;
}

function describe({ state, Tr, Tc }, written) {
  const { i, j, phase } = state;
  const shared = [`Q${i}`];
  const registers = ['m', 'l', `O${i}`];
  if (phase === 1 || phase === 2) shared.push(`K${j}`);
  if (phase === 3) shared.push(`V${j}`);
  if (phase > 0) registers.push(`S${i}${j}`);
  const tail = written ? `; O${i} written to HBM` : '';
  const where = `in shared memory: ${shared.join(', ')}; in registers: ${registers.join(', ')}`;
  return `Query tile ${i} of ${Tr} against K/V tile ${j} of ${Tc}; ${where}${tail}`;
}
