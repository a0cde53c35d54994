// What the roofline section shows, from the page's spec and the sizes it is drawn at: the parameters of each
// algorithm, its bytes (explorer/formulas.js) and FLOPs (flops.js), and where it sits on each GPU's roofline
// (`bound`, a port of kernelviz.roofline.bound). The spec is written by the site builder
// (kernelviz/site/extensions/roofline.py), the GPUs' figures taken from kernelviz/roofline/gpus.json:
//   {gpus: [{key, name, hbm_bytes_per_s, tensor_flops_per_s, fp32_flops_per_s}], algorithms: [name, ...],
//    page: {param: a form size's name (a string) or a fixed value}, sizes: {the form's sizes}, presets: [{key,
//    label, form: {size: value}, fixed: {param: value}}], measured: null or {machine, gpu, runs: [{algorithm,
//    dtype, N, N_kv, d, Br, Bc, batch_heads, causal, splits, seconds}]} (kernelviz/roofline/measured.py)}
// tests/roofline/test_roofline_js.py holds `rows` equal to `kernelviz roofline`'s table (roofline.cli.table).
import * as bytes from '../explorer/formulas.js';
import * as flops from './flops.js';

const DEFAULTS = { N: 64, N_kv: null, d: 64, Br: 64, Bc: 64, causal: false, splits: 4, batch_heads: 1, dtype: 'float32' };
const ITEMSIZE = { float32: 4, float16: 2 };

/** The algorithm parameters at the form's `sizes` under `preset` (null: the figure's own): each of the page's params
 * names a form size (taken from `sizes`, a preset's `form` overriding it) or is fixed; a preset's `fixed` wins. */
export function params(spec, sizes, preset = null) {
  const form = { ...sizes };
  for (const [name, value] of Object.entries(preset?.form || {})) if (name in form) form[name] = value;
  const out = {};
  for (const name of Object.keys(DEFAULTS)) {
    const given = spec.page?.[name];
    if (typeof given === 'string' && given in form) out[name] = form[given]; // a form size's name
    else if (given !== undefined) out[name] = given;
    else if (name in form) out[name] = form[name];
    else out[name] = DEFAULTS[name];
  }
  Object.assign(out, preset?.fixed || {});
  out.N_kv ??= out.N;
  out.causal = Boolean(out.causal);
  out.splits = Math.min(out.splits, bytes.cdiv(out.N_kv, out.Bc)); // as `kernelviz roofline`: at most the tiles
  return out;
}

/** kernelviz.roofline.bound: the time each unit needs, the least time, the unit that sets it, the FLOP/s attained. */
export function bound(totalBytes, work, gpu) {
  const all = flops.total(work);
  const seconds = {
    memory: totalBytes / gpu.hbm_bytes_per_s,
    'tensor cores': work.matmul / gpu.tensor_flops_per_s,
    'CUDA cores': (work.exp + work.other) / gpu.fp32_flops_per_s,
  };
  let limit = 'memory';
  for (const unit of Object.keys(seconds)) if (seconds[unit] > seconds[limit]) limit = unit;
  const least = seconds[limit];
  return {
    gpu: gpu.key,
    bytes: totalBytes,
    flops: all,
    intensity: totalBytes ? all / totalBytes : Infinity,
    seconds,
    lower_bound_s: least,
    bound: limit,
    attained_flops_per_s: least ? all / least : 0,
  };
}

const FUNCTION = {
  standard: 'standard',
  fa1: 'fa1',
  fa2: 'fa2',
  'flash-decoding': 'flash_decoding',
  'fa2-backward': 'fa2_backward',
  'standard-backward': 'standard_backward',
};

/** One algorithm at `p` (from `params`): {algorithm, bytes, flops: {matmul, exp, other}}. */
export function counted(algorithm, p) {
  const fn = FUNCTION[algorithm];
  if (!fn) throw new Error(`roofline: no closed form for ${algorithm}`);
  const itemsize = ITEMSIZE[p.dtype];
  const split = algorithm === 'flash-decoding' ? [p.splits] : [];
  const b = bytes[fn](p.N, p.d, p.Br, p.Bc, ...split, p.N_kv, p.causal, itemsize, p.batch_heads);
  const f = flops[fn](p.N, p.d, p.Br, p.Bc, ...split, p.N_kv, p.causal, p.batch_heads);
  return { algorithm, bytes: bytes.total(b), flops: f };
}

/** [{algorithm, bytes, flops, bounds: {gpu key: bound}}] of the spec's algorithms at `p`. */
export function rows(spec, p) {
  return spec.algorithms.map((algorithm) => {
    const row = counted(algorithm, p);
    row.bounds = Object.fromEntries(spec.gpus.map((gpu) => [gpu.key, bound(row.bytes, row.flops, gpu)]));
    return row;
  });
}

/** A measured run (kernelviz/roofline/measured.py) as a point: {algorithm, label, intensity, flops_per_s}, its
 * FLOPs and bytes from the closed forms at its sizes, over the seconds it took. */
export function measuredPoint(run, machine) {
  const p = { ...run, N_kv: run.N_kv ?? run.N, causal: Boolean(run.causal), batch_heads: run.batch_heads ?? 1 };
  p.Br ??= 64;
  p.Bc ??= 64;
  p.dtype = run.dtype === 'bfloat16' ? 'float16' : run.dtype; // two bytes an element either way
  const { bytes: moved, flops: work } = counted(run.algorithm, p);
  const all = flops.total(work);
  const split = run.algorithm === 'flash-decoding' ? `, ${run.splits} splits` : '';
  const ms = (run.seconds * 1e3).toPrecision(3);
  const label = `${run.algorithm} measured on ${machine}: ${ms} ms at N = ${p.N}, N_kv = ${p.N_kv}, d = ${p.d}, batch × heads = ${p.batch_heads}, ${run.dtype}${split}`;
  return { algorithm: run.algorithm, label, intensity: all / moved, flops_per_s: all / run.seconds };
}
