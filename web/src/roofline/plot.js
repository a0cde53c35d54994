// The roofline plot, as SVG markup: arithmetic intensity (FLOPs per byte of HBM traffic) against attainable FLOP/s,
// both on log scales (d3-scale: the domains, the ticks; d3-format: their labels). Each GPU has its roofs: the memory
// slope I * bandwidth up to the tensor-core peak (solid) and to the fp32 peak (dashed, what exponentials and other
// elementwise work can reach). Each algorithm is a marker on each GPU (its shape the algorithm's, its colour the
// GPU's) at its intensity and the FLOP/s a kernel attains at its lower bound on time; measured kernels, when a
// results file of bench/gpu.py is present, are crosses at their intensity and the FLOP/s they measured.
import { scaleLog } from 'd3-scale';
import { format } from 'd3-format';
import { el } from './markup.js';

export const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'circle', 'square'];
const MARGIN = { top: 12, right: 26, bottom: 44, left: 50 };
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
  const xs = [...rows.flatMap((r) => Object.values(r.bounds).map((b) => b.intensity)), ...gpus.map((g) => g.tensor_flops_per_s / g.hbm_bytes_per_s)];
  const ys = rows.flatMap((r) => Object.values(r.bounds).map((b) => b.attained_flops_per_s));
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

/** Axis ticks and grid lines of a log scale: labelled by d3's tickFormat (the decades), the rest grid only. */
function axis(scale, horizontal, width, height, label) {
  const ticks = scale.ticks();
  const text = scale.tickFormat(ticks.length > 12 ? 6 : 12, horizontal ? ',~g' : '~s');
  const [a, b] = horizontal ? [height - MARGIN.bottom, MARGIN.top] : [MARGIN.left, width - MARGIN.right];
  const parts = ticks.map((t) => {
    const at = round(scale(t));
    const words = text(t);
    const line = horizontal ? { x1: at, x2: at, y1: a, y2: b } : { x1: a, x2: b, y1: at, y2: at };
    const grid = el('line', { class: words ? 'kv-roof-grid kv-roof-major' : 'kv-roof-grid', ...line });
    if (!words) return grid;
    const where = horizontal ? { x: at, y: a + 16, 'text-anchor': 'middle' } : { x: a - 6, y: at + 4, 'text-anchor': 'end' };
    return grid + el('text', { class: 'kv-roof-tick', ...where }, words);
  });
  const title = horizontal
    ? el('text', { class: 'kv-roof-axis', x: (MARGIN.left + width - MARGIN.right) / 2, y: height - 6, 'text-anchor': 'middle' }, label)
    : el('text', { class: 'kv-roof-axis', transform: `translate(14 ${(MARGIN.top + height - MARGIN.bottom) / 2}) rotate(-90)`, 'text-anchor': 'middle' }, label);
  return el('g', { class: horizontal ? 'kv-roof-x' : 'kv-roof-y' }, parts, title);
}

const flopsPerS = format('.3~s');

/** The plot of `rows` (model.rows) on `gpus`, with `measured` points, `width` px wide: SVG markup. */
export function plot(rows, gpus, measured, width) {
  const height = Math.round(Math.max(260, Math.min(420, width * 0.62)));
  const { x, y } = scales(rows, gpus, measured, width, height);
  const roofs = gpus.map((g, i) =>
    el(
      'g',
      { class: `kv-roof kv-roof-gpu-${i}`, 'data-gpu': g.key },
      el('title', {}, `${g.name}: ${flopsPerS(g.tensor_flops_per_s)}FLOP/s tensor cores, ${flopsPerS(g.fp32_flops_per_s)}FLOP/s fp32, ${flopsPerS(g.hbm_bytes_per_s)}B/s HBM`),
      el('path', { class: 'kv-roof-tensor', d: roof(x, y, g.tensor_flops_per_s, g.hbm_bytes_per_s) }),
      el('path', { class: 'kv-roof-fp32', d: roof(x, y, g.fp32_flops_per_s, g.hbm_bytes_per_s) }),
    ),
  );
  const points = rows.flatMap((row, a) =>
    gpus.map((g, i) => {
      const b = row.bounds[g.key];
      const attrs = {
        class: `kv-roof-point kv-roof-gpu-${i}${row.algorithm.startsWith('standard') ? ' kv-roof-contrast' : ''}`,
        'data-algorithm': row.algorithm,
        'data-gpu': g.key,
        'data-intensity': b.intensity,
        'data-flops-per-s': b.attained_flops_per_s,
      };
      return el('g', attrs, el('title', {}, `${row.algorithm} on ${g.name}: ${format('.3~g')(b.intensity)} FLOP/B, at most ${flopsPerS(b.attained_flops_per_s)}FLOP/s (${b.bound} bound)`),
        marker(SHAPES[a], round(x(b.intensity)), round(y(b.attained_flops_per_s)), {}));
    }),
  );
  const crosses = measured.map((m) => {
    const cx = round(x(m.intensity));
    const cy = round(y(m.flops_per_s));
    const attrs = { class: 'kv-roof-measured', 'data-algorithm': m.algorithm, 'data-intensity': m.intensity, 'data-flops-per-s': m.flops_per_s };
    return el('g', attrs, el('title', {}, m.label), el('path', { d: `M${cx - R},${cy - R}L${cx + R},${cy + R}M${cx - R},${cy + R}L${cx + R},${cy - R}` }));
  });
  return el(
    'svg',
    { class: 'kv-roof-plot', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'Roofline: arithmetic intensity against attainable FLOP/s, log-log, with each GPU\'s roofs and the algorithms at the sizes chosen' },
    axis(x, true, width, height, 'arithmetic intensity (FLOP/B)'),
    axis(y, false, width, height, 'attainable FLOP/s'),
    roofs,
    points,
    crosses,
  );
}
