// The roofline section's body, as markup (markup.js): the sizes in words, the plot (plot.js) and its legend, what
// was measured, and the table of bytes, FLOPs, intensity, bound and least time on each GPU. `body(spec, state)`
// is the whole of it at `state` = {sizes: the form's, preset: a preset's key or 'figure', width: px}: the site
// builder writes it into the page (build-time/render-roofline.js) and the browser writes it again when the sizes
// or the preset change (entries/roofline.js). Each number's exact value is in a data-value attribute. Bytes and
// times read as `kernelviz roofline` prints them (words.js: binary units; s, ms, µs, ns).
import { isBaseline, takes } from '../explorer/topics.js';
import { el, escape } from './markup.js';
import { measuredPoint, params, rows } from './model.js';
import { plot, SHAPES } from './plot.js';
import { sharedBytes, units } from './units.js';
import { amount, bytes, perByte, time } from './words.js';

export const WIDTH = 520; // px: the plot's width at build time, legible scaled to a phone (the browser redraws it)

/** The parameters in words: N = 4096, N_kv = 4096, d = 64, Br = Bc = 64, batch × heads = 32, float16. */
export function words(p, algorithms) {
  if (p.seq_lens) {
    const batch = [`sequences of ${p.seq_lens.join(' and ')} tokens`, `pages of ${p.page_size}`, `H_q = ${p.H_q}`];
    return [...batch, `H_kv = ${p.H_kv}`, `splits = ${p.splits}`, `d = ${p.d}`, p.dtype].join(', ');
  }
  const parts = [`N = ${p.N}`, `N_kv = ${p.N_kv}`, `d = ${p.d}`, `Br = ${p.Br}`, `Bc = ${p.Bc}`];
  if (algorithms.some((a) => takes(a, 'splits'))) parts.push(`splits = ${p.splits}`);
  if (p.causal) parts.push('causal');
  parts.push(`batch × heads = ${p.batch_heads}`, p.dtype);
  return parts.join(', ');
}

const SHAPE_TEXT = { circle: '●', square: '■', triangle: '▲', diamond: '◆' };
const hidden = (cls, text) => el('span', { 'aria-hidden': 'true', class: cls }, text);

function legend(spec) {
  const line = el('line', { x1: 0, x2: 22, y1: 5, y2: 5 });
  const swatch = el('svg', { width: 22, height: 10, 'aria-hidden': 'true' }, line);
  const gpus = spec.gpus.map((g, i) => el('li', { class: `kv-roof-gpu-${i}` }, swatch, escape(g.name)));
  const algos = spec.algorithms.map((a, i) => {
    const contrast = isBaseline(a) ? 'kv-roof-contrast' : null;
    return el('li', { class: contrast }, hidden('kv-roof-shape', SHAPE_TEXT[SHAPES[i]]), escape(a));
  });
  const fp32 = el('li', {}, hidden('kv-roof-fp32-key', '- -'), 'fp32 roof');
  return el('ul', { class: 'kv-roof-legend' }, gpus, algos, fp32);
}

function measuredNote(spec, points) {
  const m = spec.measured;
  const bench = el('code', {}, 'bench/gpu.py');
  const note = (n, ...children) =>
    el(n ? 'div' : 'p', { class: 'kv-roof-measured-note', 'data-measured': n }, ...children);
  const boundsOnly = ', so the plot shows the bounds only.';
  if (!m) {
    const when = ' from a GPU were present when this site was built';
    return note(0, 'Nothing has been measured yet: no results of ', bench, when + boundsOnly);
  }
  if (!points.length) {
    const where = ` on ${escape(m.machine)} have no run of them`;
    return note(0, 'Nothing has been measured of these kernels yet: the results of ', bench, where + boundsOnly);
  }
  const runs = points.length === 1 ? '1 kernel run' : `${points.length} kernel runs`;
  const said = el('p', {}, `Crosses: ${runs} measured by `, bench, ` on ${escape(m.machine)}, each at its own sizes.`);
  const list = el('ul', { class: 'kv-roof-runs' }, points.map((p) => el('li', {}, escape(p.label))));
  // folded: a long list of runs would push the bars and the tables a screen further down
  return note(points.length, said, el('details', {}, el('summary', {}, `The ${runs}`), list));
}

function table(spec, rowsAt) {
  const th = (text) => el('th', { scope: 'col' }, text);
  const gpus = spec.gpus.map((g) => th(escape(g.name)));
  const head = el('tr', {}, th('algorithm'), th('bytes'), th('FLOPs'), th('FLOP/B'), gpus);
  const body = rowsAt.map((row) => {
    const first = row.bounds[spec.gpus[0].key];
    const total = row.flops.matmul + row.flops.exp + row.flops.other;
    return el(
      'tr',
      { 'data-algorithm': row.algorithm },
      el('th', { scope: 'row' }, escape(row.algorithm)),
      el('td', { 'data-key': 'bytes', 'data-value': row.bytes }, bytes(row.bytes)),
      el('td', { 'data-key': 'flops', 'data-value': total }, amount(total, '')),
      el('td', { 'data-key': 'intensity', 'data-value': first.intensity }, perByte(first.intensity)),
      spec.gpus.map((g) => {
        const b = row.bounds[g.key];
        const attrs = { 'data-key': 'bound', 'data-gpu': g.key, 'data-bound': b.bound, 'data-value': b.lower_bound_s };
        return el('td', attrs, `${b.bound}, `, el('span', { class: 'kv-roof-time' }, time(b.lower_bound_s)));
      }),
    );
  });
  const slowest = Math.max(...rowsAt.flatMap((row) => Object.values(row.bounds).map((b) => b.lower_bound_s)));
  const toy =
    slowest < 1e-6
      ? ` At these toy sizes every time is under a microsecond (${time(slowest)} at most), less than it takes to ` +
        'launch a kernel: the bound is what to read, not the time; a realistic size above gives times a GPU would take.'
      : '';
  const caption = el(
    'p',
    { class: 'kv-roof-caption' },
    'HBM bytes moved (in binary units, as kernelviz roofline prints them), FLOPs done, FLOPs per byte, and on each ' +
      'GPU the unit that bounds the kernel and the least time it could take.' +
      toy,
  );
  const more = el('p', { class: 'kv-roof-more', 'aria-hidden': 'true', hidden: true }, 'Scroll the table sideways for more →');
  const scroller = { class: 'kv-roof-table', tabindex: '0', role: 'region', 'aria-label': 'The roofline in numbers' };
  return caption + more + el('div', scroller, el('table', {}, el('thead', {}, head), el('tbody', {}, body)));
}

/** Each unit's least time alone on `gpu`, the GPU of the bars: the table's columns by unit (`answers`: each row's
 * roofline/units.js answer there), a row an algorithm, the bound's cell bold; a unit no row counts (shared memory
 * off the tensor-core pages) has no column, and a dash where one row counts it and another does not. */
function unitTable(spec, rowsAt, gpu, answers) {
  if (!answers) return '';
  const names = Object.keys(gpu.units).filter((u) => answers.some((a) => u in a.units));
  const th = (text) => el('th', { scope: 'col' }, text);
  const named = (u) => {
    const [name, aside] = u.split(' (');
    return aside ? [escape(name), el('span', { class: 'kv-roof-unit-aside' }, ` (${escape(aside)}`)] : escape(u);
  };
  const head = el('tr', {}, th('algorithm'), names.map((u) => th(named(u))));
  const body = rowsAt.map((row, n) => {
    const cells = names.map((unit) => {
      const u = answers[n].units[unit];
      const attrs = { 'data-key': 'unit', 'data-unit': unit, 'data-gpu': gpu.key, 'data-value': u ? u.seconds : '' };
      if (!u) return el('td', { ...attrs, title: 'not counted for this algorithm' }, '—');
      const bound = unit === answers[n].bound;
      return el('td', { ...attrs, 'data-bound': bound }, bound ? el('b', {}, time(u.seconds)) : time(u.seconds));
    });
    return el('tr', { 'data-algorithm': row.algorithm }, el('th', { scope: 'row' }, escape(row.algorithm)), cells);
  });
  const said = `Unit by unit on ${escape(gpu.name)}, the GPU of the bars: each unit's least time alone, the bound's bold.`;
  const caption = el('p', { class: 'kv-roof-caption' }, said);
  const box = { class: 'kv-roof-unit-table', 'data-gpu': gpu.key, role: 'region', tabindex: '0', 'aria-label': said };
  return caption + el('div', box, el('table', {}, el('thead', {}, head), el('tbody', {}, body)));
}

/** What the section shows at `state`, in a sentence for a screen reader (said when the preset or the sizes change):
 * the sizes, then each algorithm's bound and least time on the first GPU. */
export function summary(spec, state) {
  const preset = spec.presets.find((p) => p.key === state.preset) || null;
  const p = params(spec, state.sizes, preset);
  const gpu = spec.gpus[0];
  const each = rows(spec, p).map((row) => {
    const b = row.bounds[gpu.key];
    return `${row.algorithm} bound by ${b.bound}, at least ${time(b.lower_bound_s)}`;
  });
  return `Roofline at ${words(p, spec.algorithms)}. On ${gpu.name}: ${each.join('; ')}.`;
}

/** The GPU chooser of the bars: one radio button a GPU. */
function gpuChooser(spec, chosen) {
  const choice = (g) => {
    const input = el('input', { type: 'radio', name: 'kv-roof-gpu', value: g.key, checked: g.key === chosen });
    return el('label', {}, input, escape(g.name));
  };
  return el('fieldset', { class: 'kv-roof-gpus' }, el('legend', {}, 'GPU of the bars'), spec.gpus.map(choice));
}

/** A bar per unit for each algorithm on `gpu`: the least time that unit alone needs (count / rate,
 * roofline/units.js), the longest named as the bound. */
function unitBars(spec, at, gpu, answers) {
  if (!answers) return ''; // a spec without the per-unit rates (a hand-made one): no bars
  const algos = at.map((row, n) => {
    const answer = answers[n];
    const longest = answer.lower_bound_s;
    const bars = Object.entries(answer.units).map(([unit, u]) => {
      const width = `width: ${Math.max(0.5, (100 * u.seconds) / longest).toFixed(1)}%`;
      const name = unit === spec.units.tensor ? `${unit} (${answer.family})` : unit;
      const attrs = { class: 'kv-roof-unit', 'data-unit': unit, 'data-seconds': u.seconds, 'data-count': u.count };
      return el(
        'li',
        { ...attrs, 'data-bound': unit === answer.bound },
        el('span', { class: 'kv-roof-unit-name' }, escape(name)),
        el('span', { class: 'kv-roof-unit-track', 'aria-hidden': 'true' }, el('span', { class: 'kv-roof-unit-fill', style: width })),
        el('span', { class: 'kv-roof-unit-time' }, time(u.seconds)),
      );
    });
    const head = el('p', { class: 'kv-roof-unit-algo' }, el('b', {}, escape(row.algorithm)), ` bound by ${escape(answer.bound)}`);
    const attrs = { class: 'kv-roof-units-algo', 'data-algorithm': row.algorithm, 'data-bound': answer.bound };
    return el('div', { ...attrs, 'data-family': answer.family }, head, el('ul', {}, bars));
  });
  const title = `Each unit alone on ${escape(gpu.name)}: its count over its rate, the least time it needs`;
  return el('div', { class: 'kv-roof-units', 'data-gpu': gpu.key }, el('p', { class: 'kv-roof-units-title' }, title), algos);
}

/** The preset chooser: the figure's sizes (the form's) or a realistic size. */
function presets(spec, chosen) {
  const choice = (key, label) => {
    const input = el('input', { type: 'radio', name: 'kv-roof-preset', value: key, checked: key === chosen });
    return el('label', {}, input, escape(label));
  };
  const all = [choice('figure', "the figure's (the form's)"), spec.presets.map((p) => choice(p.key, p.label))];
  return el('fieldset', { class: 'kv-roof-presets' }, el('legend', {}, 'Sizes'), all);
}

/** The whole section's content at `state`: the spec (for the browser), the preset chooser and the body. */
export function section(spec, state) {
  const json = JSON.stringify(spec).replace(/</g, '\\u003c');
  const script = el('script', { type: 'application/json', class: 'kv-roof-spec' }, json);
  const said = el('p', { class: 'kv-roof-said kv-unseen', role: 'status' }); // (entries/roofline.js fills it)
  const gpus = gpuChooser(spec, state.gpu || spec.gpus[0].key);
  return script + presets(spec, state.preset || 'figure') + gpus + said + body(spec, state);
}

/** The section's body at `state` (see the top of this file). */
export function body(spec, state) {
  const preset = spec.presets.find((p) => p.key === state.preset) || null;
  const p = params(spec, state.sizes, preset);
  const at = rows(spec, p);
  const measured = (spec.measured?.runs || []).map((run) => measuredPoint(run, spec.measured.machine));
  const gpu = spec.gpus.find((g) => g.key === state.gpu) || spec.gpus[0];
  const answer = (row) => units(spec, row, gpu, sharedBytes(spec, row.algorithm, p));
  const answers = spec.units && gpu.units ? at.map(answer) : null;
  return el(
    'div',
    {
      class: 'kv-roof-body',
      'data-params': JSON.stringify(p),
      'data-preset': preset ? preset.key : 'figure',
      'data-drawn': JSON.stringify([state.sizes, preset ? preset.key : 'figure', gpu.key]),
    },
    el('p', { class: 'kv-roof-sizes' }, 'At ', escape(words(p, spec.algorithms)), '.'),
    plot(at, spec.gpus, measured, state.width || WIDTH),
    legend(spec),
    unitBars(spec, at, gpu, answers),
    measuredNote(spec, measured),
    table(spec, at),
    unitTable(spec, at, gpu, answers),
  );
}
