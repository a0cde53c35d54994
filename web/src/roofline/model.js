// What the roofline section shows, from the page's spec and the sizes it is drawn at: the parameters of each
// algorithm, its bytes and FLOPs (its record's closed forms, topics.js), and where it sits on each GPU's roofline
// (`bound`: kernelviz.roofline.bound's table of units, generated into web/.gen/bound.js). The spec is written by the site builder
// (kernelviz/site/extensions/roofline.py), the GPUs' figures taken from kernelviz/roofline/gpus.json:
//   {gpus: [{key, name, hbm_bytes_per_s, tensor_flops_per_s, fp32_flops_per_s}], algorithms: [name, ...],
//    page: {param: a form size's name (a string) or a fixed value}, sizes: {the form's sizes}, presets: [{key,
//    label, form: {size: value}, fixed: {param: value}}], measured: null or {machine, gpu, runs: [{algorithm,
//    dtype, N, N_kv, d, Br, Bc, batch_heads, causal, splits, seconds}]} (kernelviz/roofline/measured.py)}
// tests/roofline/test_roofline_js.py holds `rows` equal to `kernelviz roofline`'s table (commands.roofline.table).
import { BOUND_UNITS } from '#gen/bound.js';
import * as bytes from '../explorer/formulas.js';
import * as flops from './flops.js';
import { evaluate, takes, takesBatch } from '../explorer/topics.js';

const DEFAULTS = { N: 64, N_kv: null, d: 64, Br: 64, Bc: 64, causal: false, splits: 4, batch_heads: 1, dtype: 'float32',
  seq_lens: null, page_size: 16, H_q: 1, H_kv: null }; // prettier-ignore
const ITEMSIZE = { float32: 4, float16: 2 };

/** The algorithm parameters at the form's `sizes` under `preset` (null: the figure's own): each of the page's params
 * names a form size (taken from `sizes`, a preset's `form` overriding it) or is fixed, or is a list of those (paged
 * decoding's seq_lens: [L0, L1]); a preset's `fixed` wins. */
export function params(spec, sizes, preset = null) {
  const form = { ...sizes };
  for (const [name, value] of Object.entries(preset?.form || {})) if (name in form) form[name] = value;
  const value = (given) => (typeof given === 'string' && given in form ? form[given] : given); // a form size's name
  const out = {};
  for (const name of Object.keys(DEFAULTS)) {
    const given = spec.page?.[name];
    if (Array.isArray(given)) out[name] = given.map(value);
    else if (given !== undefined) out[name] = value(given);
    else if (name in form) out[name] = form[name];
    else out[name] = DEFAULTS[name];
  }
  Object.assign(out, preset?.fixed || {});
  out.N_kv ??= out.N;
  out.H_kv ??= out.H_q;
  out.causal = Boolean(out.causal);
  if (!out.seq_lens) out.splits = Math.min(out.splits, bytes.cdiv(out.N_kv, out.Bc)); // as `kernelviz roofline`
  return out;
}

/** kernelviz.roofline.bound, evaluating the same table (BOUND_UNITS: each unit's counts over its GPU figure): the
 * time each unit needs, the least time, the unit that sets it (the first of the largest), the FLOP/s attained. */
export function bound(totalBytes, work, gpu) {
  const all = flops.total(work);
  const count = { bytes: totalBytes, ...work };
  const seconds = {};
  for (const [unit, { counts, rate }] of Object.entries(BOUND_UNITS)) {
    seconds[unit] = counts.reduce((sum, c) => sum + count[c], 0) / gpu[rate];
  }
  const limit = Object.keys(seconds).reduce((a, b) => (seconds[b] > seconds[a] ? b : a));
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

/** One algorithm at `p` (from `params`): {algorithm, bytes, flops: {matmul, exp, other}}, from its record's closed
 * forms (topics.js). With a batch (p.seq_lens), an algorithm whose closed forms take no batch (q, k, v inputs)
 * decodes each sequence alone, every query head on its own (one query row against its L keys, in tiles of a page,
 * batch_heads = H_q), summed over the batch. */
export function counted(algorithm, p) {
  const values = { ...p, itemsize: ITEMSIZE[p.dtype] };
  if (!p.seq_lens || takesBatch(algorithm)) {
    const moved = evaluate(algorithm, 'bytes', values);
    const work = evaluate(algorithm, 'flops', values);
    if (!moved || !work) throw new Error(`roofline: no closed form for ${algorithm}`);
    return { algorithm, bytes: bytes.total(moved), flops: work };
  }
  const alone = { ...p, seq_lens: null, N: 1, Br: 1, Bc: p.page_size, batch_heads: p.H_q };
  const each = p.seq_lens.map((L) => counted(algorithm, { ...alone, N_kv: L }));
  const work = flops.count();
  for (const one of each) for (const kind of Object.keys(work)) work[kind] += one.flops[kind];
  return { algorithm, bytes: each.reduce((sum, one) => sum + one.bytes, 0), flops: work };
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
  const split = takes(run.algorithm, 'splits') ? `, ${run.splits} splits` : '';
  const ms = (run.seconds * 1e3).toPrecision(3);
  const sizes = `N = ${p.N}, N_kv = ${p.N_kv}, d = ${p.d}, batch × heads = ${p.batch_heads}, ${run.dtype}${split}`;
  const label = `${run.algorithm} measured on ${machine}: ${ms} ms at ${sizes}`;
  return { algorithm: run.algorithm, label, intensity: all / moved, flops_per_s: all / run.seconds };
}
