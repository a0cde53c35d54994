// Each unit's least time in the browser: kernelviz/roofline/units.py's arithmetic on the spec's data. The GPUs carry
// their per-unit rates (spec.gpus[i].units: {unit: rate}, the tensor cores at the fastest family) and tensor rates by
// instruction family (families); spec.units.counts says which count each unit serves ({unit: 'bytes' | 'shared' |
// 'matmul' | 'exp' | 'other'}); spec.instruction gives an algorithm's family, spec.shared the algorithms whose
// shared-memory traffic is counted (each by its record's closed form, explorer/topics.js, at its options' defaults).
// The unit names and rates are Python's, so the bars read equal to `kernelviz trace ... --gpu ... --json`'s units.
import { evaluate } from '../explorer/topics.js';

const ITEMSIZE = { float32: 4, float16: 2, bfloat16: 2 };

/** Shared-memory bytes (stored and loaded) of `algorithm` at params `p`, or null where it is not counted. */
export function sharedBytes(spec, algorithm, p) {
  if (!spec.shared?.includes(algorithm) || p.seq_lens) return null;
  const traffic = evaluate(algorithm, 'shared', { ...p, itemsize: ITEMSIZE[p.dtype] });
  if (!traffic) return null;
  return Object.values(traffic).reduce((sum, t) => sum + t.store + t.load, 0);
}

/** roofline.units: {family, units: {unit: {count, rate, seconds}}, bound, lower_bound_s} of `row` (model.rows) on
 * `gpu`, with `shared` bytes (null: no shared-memory unit). */
export function units(spec, row, gpu, shared) {
  const families = gpu.families;
  const wanted = spec.instruction?.[row.algorithm];
  const fastest = Object.keys(families).reduce((a, b) => (families[b] > families[a] ? b : a));
  const family = wanted in families ? wanted : fastest;
  const count = { bytes: row.bytes, shared, ...row.flops };
  const table = {};
  for (const [unit, rate] of Object.entries(gpu.units)) {
    const n = count[spec.units.counts[unit]];
    if (n === null || n === undefined) continue;
    const r = unit === spec.units.tensor ? families[family] : rate;
    table[unit] = { count: n, rate: r, seconds: n / r };
  }
  const bound = Object.keys(table).reduce((a, b) => (table[b].seconds > table[a].seconds ? b : a));
  return { gpu: gpu.key, family, units: table, bound, lower_bound_s: table[bound].seconds };
}
