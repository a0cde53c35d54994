// The roofline plot, as SVG markup: arithmetic intensity (FLOPs per byte of HBM traffic) against attainable FLOP/s,
// both on log scales (d3-scale: the domains, the ticks; d3-format: their labels). Each GPU has its roofs: the memory
// slope I * bandwidth up to the tensor-core peak (solid) and to the fp32 peak (dashed, what exponentials and other
// elementwise work can reach). Each algorithm is a marker on each GPU (its shape the algorithm's, its colour the
// GPU's) at its intensity and the FLOP/s a kernel attains at its lower bound on time; measured kernels, when a
// results file of bench/gpu.py is present, are crosses at their intensity and the FLOP/s they measured.
import { scaleLog } from 'd3-scale';
import { isBaseline } from '../explorer/topics.js';
import { el } from './markup.js';
import { perByte, prefixed as rate } from './words.js';

export const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'circle', 'square'];
const MARGIN = { top: 12, right: 26, bottom: 44, left: 60 };
const R = 5; // marker radius, px

/** A marker of `shape` centred at (x, y), as SVG markup with `attrs`. */
function marker(shape, x, y, attrs) {
  const r = R;
  if (shape === 'circle') return el('circle', { cx: x, cy: y, r, ...attrs });
  if (shape === 'square') return el('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...attrs });
  const pts =
    shape === 'triangle'
      ? [[x, y - r * 1.2], [x + r * 1.1, y + r * 0.8], [x - r * 1.1, y + r * 0.8]]
      : [[x, y - r * 1.3], [x + r * 1.1, y], [x, y + r * 1.3], [x - r * 1.1, y]]; // prettier-ignore
  return el('polygon', { points: pts.map((p) => p.map(round).join(',')).join(' '), ...attrs });
}

const round = (v) => Math.round(v * 100) / 100;
const decade = (v, up) => 10 ** (up ? Math.ceil(Math.log10(v)) : Math.floor(Math.log10(v)));

/** The x and y log scales for `rows` and `gpus` (and `measured` points) in a box of `width` x `height` px. */
export function scales(rows, gpus, measured, width, height) {
  const bounds = rows.flatMap((r) => Object.values(r.bounds));
  const xs = [...bounds.map((b) => b.intensity), ...gpus.map((g) => g.tensor_flops_per_s / g.hbm_bytes_per_s)];
  const ys = bounds.map((b) => b.attained_flops_per_s);
  for (const m of measured) xs.push(m.intensity), ys.push(m.flops_per_s);
  const x = scaleLog()
    .domain([decade(Math.min(...xs) / 2, false), decade(Math.max(...xs) * 2, true)])
    .range([MARGIN.left, width - MARGIN.right]);
  const [x0] = x.domain();
  ys.push(...gpus.map((g) => Math.min(g.fp32_flops_per_s, x0 * g.hbm_bytes_per_s)));
  const top = Math.max(...gpus.map((g) => g.tensor_flops_per_s));
  const y = scaleLog()
    .domain([decade(Math.min(...ys) / 1.5, false), top * 2])
    .range([height - MARGIN.bottom, MARGIN.top]);
  return { x, y };
}

/** The roof of a unit at `peak` FLOP/s over memory of `bandwidth` B/s across the x domain: an SVG path. */
function roof(x, y, peak, bandwidth) {
  const [x0, x1] = x.domain();
  const ridge = peak / bandwidth;
  const at = (i) => `${round(x(i))},${round(y(Math.min(peak, i * bandwidth)))}`;
  const corners = ridge > x0 && ridge < x1 ? [x0, ridge, x1] : [x0, x1];
  return `M${corners.map(at).join('L')}`;
}

/** Axis ticks and grid lines of a log scale: the ticks d3 labels (tickFormat's count: the decades, and 2 and 3 times
 * them where a decade is wide enough for their labels) and grid lines at all of them. */
function axis(scale, horizontal, width, height, label) {
  const ticks = scale.ticks();
  const [d0, d1] = scale.domain();
  const [r0, r1] = scale.range();
  const perDecade = Math.abs(r1 - r0) / Math.log10(d1 / d0);
  const k = perDecade >= 200 ? 3 : perDecade >= 120 ? 2 : 1; // labelled multiples of each decade: 1, 2, 3
  const text = scale.tickFormat((k * ticks.length) / 10, horizontal ? ',~g' : '~s');
  const [a, b] = horizontal ? [height - MARGIN.bottom, MARGIN.top] : [MARGIN.left, width - MARGIN.right];
  const parts = ticks.map((t) => {
    const at = round(scale(t));
    const words = text(t);
    const line = horizontal ? { x1: at, x2: at, y1: a, y2: b } : { x1: a, x2: b, y1: at, y2: at };
    const grid = el('line', { class: words ? 'kv-roof-grid kv-roof-major' : 'kv-roof-grid', ...line });
    if (!words) return grid;
    const where = horizontal
      ? { x: at, y: a + 16, 'text-anchor': 'middle' }
      : { x: a - 6, y: at + 4, 'text-anchor': 'end' };
    return grid + el('text', { class: 'kv-roof-tick', ...where }, words);
  });
  const middle = horizontal ? (MARGIN.left + width - MARGIN.right) / 2 : (MARGIN.top + height - MARGIN.bottom) / 2;
  const place = horizontal ? { x: middle, y: height - 6 } : { transform: `translate(13 ${middle}) rotate(-90)` };
  const title = el('text', { class: 'kv-roof-axis', ...place, 'text-anchor': 'middle' }, label);
  return el('g', { class: horizontal ? 'kv-roof-x' : 'kv-roof-y' }, parts, title);
}

/** A GPU's roofs: the tensor-core roof and the fp32 one, each over its memory slope. */
function roofs(x, y, gpus) {
  return gpus.map((g, i) => {
    const peaks = `${rate(g.tensor_flops_per_s, 'FLOP/s')} tensor cores, ${rate(g.fp32_flops_per_s, 'FLOP/s')} fp32`;
    return el(
      'g',
      { class: `kv-roof kv-roof-gpu-${i}`, 'data-gpu': g.key },
      el('title', {}, `${g.name}: ${peaks}, ${rate(g.hbm_bytes_per_s, 'B/s')} HBM`),
      el('path', { class: 'kv-roof-tensor', d: roof(x, y, g.tensor_flops_per_s, g.hbm_bytes_per_s) }),
      el('path', { class: 'kv-roof-fp32', d: roof(x, y, g.fp32_flops_per_s, g.hbm_bytes_per_s) }),
    );
  });
}

/** The slower tensor-core instruction families' ceilings under a GPU's roof (Hopper's mma.sync under wgmma),
 * dashed, each named at its right end. */
function ceilings(x, y, g, i) {
  const under = Object.entries(g.families || {})
    .filter(([, r]) => r < g.tensor_flops_per_s)
    .map(([family, r]) => {
      const [x1, yy] = [x.range()[1], round(y(r))];
      const attrs = { class: 'kv-roof-ceiling', 'data-family': family, 'data-flops-per-s': r };
      return el(
        'g',
        attrs,
        el('title', {}, `${g.name}: ${family} at most ${rate(r, 'FLOP/s')}`),
        el('path', { d: roof(x, y, r, g.hbm_bytes_per_s) }),
        el('text', { x: x1 - 4, y: yy + 12, 'text-anchor': 'end', class: 'kv-roof-ceiling-name' }, family),
      );
    });
  return under.length ? el('g', { class: `kv-roof-ceilings kv-roof-gpu-${i}`, 'data-gpu': g.key }, under) : '';
}

/** Each algorithm on each GPU: a marker at its intensity and the FLOP/s it attains at its least time. */
function points(x, y, rows, gpus) {
  return rows.flatMap((row, a) =>
    gpus.map((g, i) => {
      const b = row.bounds[g.key];
      const contrast = isBaseline(row.algorithm) ? ' kv-roof-contrast' : '';
      const attrs = {
        class: `kv-roof-point kv-roof-gpu-${i}${contrast}`,
        'data-algorithm': row.algorithm,
        'data-gpu': g.key,
        'data-intensity': b.intensity,
        'data-flops-per-s': b.attained_flops_per_s,
      };
      const at = `${perByte(b.intensity)} FLOP/B, at most ${rate(b.attained_flops_per_s, 'FLOP/s')}`;
      const title = el('title', {}, `${row.algorithm} on ${g.name}: ${at} (${b.bound} bound)`);
      return el('g', attrs, title, marker(SHAPES[a], round(x(b.intensity)), round(y(b.attained_flops_per_s)), {}));
    }),
  );
}

/** Measured runs: a cross each, at its intensity and the FLOP/s it reached. */
function crosses(x, y, measured) {
  return measured.map((m) => {
    const [cx, cy] = [round(x(m.intensity)), round(y(m.flops_per_s))];
    const d = `M${cx - R},${cy - R}L${cx + R},${cy + R}M${cx - R},${cy + R}L${cx + R},${cy - R}`;
    const attrs = { 'data-algorithm': m.algorithm, 'data-intensity': m.intensity, 'data-flops-per-s': m.flops_per_s };
    return el('g', { class: 'kv-roof-measured', ...attrs }, el('title', {}, m.label), el('path', { d }));
  });
}

const LABEL =
  "Roofline: arithmetic intensity against attainable FLOP/s, log-log, with each GPU's roofs and the algorithms at " +
  'the sizes chosen';

/** The plot of `rows` (model.rows) on `gpus`, with `measured` points, `width` px wide: SVG markup. */
export function plot(rows, gpus, measured, width) {
  const height = Math.round(Math.max(260, Math.min(420, width * 0.62)));
  const { x, y } = scales(rows, gpus, measured, width, height);
  return el(
    'svg',
    { class: 'kv-roof-plot', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': LABEL },
    axis(x, true, width, height, 'arithmetic intensity (FLOP/B)'),
    axis(y, false, width, height, 'attainable FLOP/s'),
    roofs(x, y, gpus),
    gpus.map((g, i) => ceilings(x, y, g, i)),
    points(x, y, rows, gpus),
    crosses(x, y, measured),
  );
}
