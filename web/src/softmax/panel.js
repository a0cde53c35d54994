// The numeric panel of the Online softmax page: controls, then three tables computed in the page (compute.js).
//
// Mount point: <div class="kv-softmax-panel" data-seed="7" data-n="16" data-b="4" data-scale="4" data-large="100">.
// The data attributes are the starting settings; the controls change them and the tables are rebuilt.

import { numberField } from '../forms/number-field.js';
import { compute } from './compute.js';
import * as fmt from './format.js';
import { el, numberCell, table } from './table.js';

const SIZES = [8, 16, 32];

function readSettings(root) {
  const d = root.dataset;
  const num = (key, fallback) => (Number.isFinite(Number(d[key])) && d[key] !== '' ? Number(d[key]) : fallback);
  return { seed: num('seed', 7), n: num('n', 16), b: num('b', 4), scale: num('scale', 4), large: num('large', 100) };
}

function divisors(n) {
  const out = [];
  for (let b = 1; b <= n; b++) if (n % b === 0) out.push(b);
  return out;
}

function field(label, input, ...extra) {
  const wrap = el('label', 'kv-sp-field');
  wrap.append(el('span', '', label), input, ...extra);
  return wrap;
}

/** A number input whose typed values outside [min, max] are refused (the range is stated beside it). */
function numberInput(name, value, { min, max, step, whole = false }, apply) {
  const input = el('input');
  Object.assign(input, { type: 'number', name });
  input.step = String(step);
  const bounded = numberField(input, { min, max, whole, apply });
  bounded.show(value);
  return { input, hint: bounded.hint };
}

function select(name, options, value) {
  const s = el('select');
  s.name = name;
  for (const o of options) {
    const opt = el('option', '', String(o));
    opt.value = String(o);
    s.append(opt);
  }
  s.value = String(value);
  return s;
}

function compareTable(r) {
  const body = r.x.map((x, j) => [
    String(j),
    numberCell(x, fmt.value(x)),
    numberCell(r.standard[j], fmt.value(r.standard[j])),
    numberCell(r.online[j], fmt.value(r.online[j])),
    numberCell(r.diff[j], fmt.diff(r.diff[j])),
  ]);
  const foot = [
    ['max', '', '', '', numberCell(r.maxDiff, fmt.diff(r.maxDiff))],
    [
      'o = Σ y·v',
      '',
      numberCell(r.oStandard, fmt.value(r.oStandard)),
      numberCell(r.oOnePass, fmt.value(r.oOnePass)),
      numberCell(Math.abs(r.oStandard - r.oOnePass), fmt.diff(Math.abs(r.oStandard - r.oOnePass))),
    ],
  ];
  const caption = 'float32: standard (safe, three passes) and online softmax side by side, and their difference';
  return table('compare', caption, ['j', 'x_j', 'standard y_j', 'online y_j', '|difference|'], body, foot);
}

function rescaleTable(r) {
  const body = r.tiles.map((t) => [
    String(t.tile),
    numberCell(t.tileMax, fmt.value(t.tileMax)),
    numberCell(t.mOld, fmt.value(t.mOld)),
    numberCell(t.mNew, fmt.value(t.mNew)),
    numberCell(t.factor, fmt.value(t.factor)),
    numberCell(t.l, fmt.value(t.l)),
  ]);
  const head = ['tile', 'tile max', 'm before', 'm after', 'e^(m before − m after)', 'l after'];
  return table('rescale', 'The rescale factor at each tile (1: the max did not grow)', head, body);
}

function overflowTable(r, large) {
  const cols = [r.overflow.float32.naive, r.overflow.float32.safe, r.overflow.float16.naive, r.overflow.float16.safe];
  const body = r.large.map((x, j) => [String(j), numberCell(x, fmt.value(x)), ...cols.map((c) => numberCell(c[j], fmt.value(c[j])))]);
  const sums = cols.map((c) => c.reduce((a, t) => a + t, 0));
  const foot = [['Σ y', '', ...sums.map((s) => numberCell(s, fmt.value(s)))]];
  const head = ['j', 'x_j', 'float32 naive', 'float32 safe', 'float16 naive', 'float16 safe'];
  const caption = `Large logits, x = ${large} · (2u − 1): naive softmax overflows where safe softmax does not`;
  return table('overflow', caption, head, body, foot);
}

/** Build the panel inside `root` and keep it in step with its controls. */
export function mount(root) {
  const settings = readSettings(root);
  const controls = el('form', 'kv-sp-controls');
  controls.addEventListener('submit', (e) => e.preventDefault());
  const typed = { seed: settings.seed, scale: settings.scale, large: settings.large }; // applied values
  const typedInput = (name, range) =>
    numberInput(name, typed[name], range, (v) => {
      typed[name] = v;
      update();
    });
  const seed = typedInput('seed', { min: 0, max: 4294967295, step: 1, whole: true });
  const n = select('n', SIZES.includes(settings.n) ? SIZES : [...SIZES, settings.n].sort((a, b) => a - b), settings.n);
  const b = select('b', divisors(settings.n), settings.b);
  const scale = typedInput('scale', { min: 0, max: 1000, step: 'any' });
  const large = typedInput('large', { min: 0, max: 10000, step: 'any' });
  controls.append(
    field('seed', seed.input, seed.hint),
    field('N', n),
    field('tile b', b),
    field('scale', scale.input, scale.hint),
    field('large', large.input, large.hint),
  );
  const out = el('div', 'kv-sp-tables');
  root.replaceChildren(controls, out);

  let shownN = settings.n;
  const update = () => {
    const size = Number(n.value);
    if (size !== shownN) {
      // the tile widths that divide the new N; keep the widest one not wider than the current width
      const keep = Number(b.value);
      b.replaceChildren(...select('b', divisors(size), 1).children);
      b.value = String(divisors(size).filter((t) => t <= keep).pop());
      shownN = size;
    }
    const s = { seed: typed.seed, n: size, b: Number(b.value), scale: typed.scale, large: typed.large };
    root.dataset.settings = JSON.stringify(s); // what the tables are computed from
    const r = compute(s);
    out.replaceChildren(compareTable(r), rescaleTable(r), overflowTable(r, s.large));
    root.dataset.ready = 'true';
  };
  n.addEventListener('change', update);
  b.addEventListener('change', update);
  update();
}
