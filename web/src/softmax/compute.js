// Everything the panel shows, computed from its settings; no DOM, so node can run it in the tests.
//
// settings: {seed, n, b, scale, large}. The row is data.row(seed, n, scale) and its values v; the overflow table
// uses the same uniforms at `large` times the scale of 1 (x_j = large · (2 u_j − 1)).

import { row } from './data.js';
import { toFloat16 } from './float16.js';
import { maxAbsDiff, naive, onePass, online, safe, weighted } from './softmax.js';

export const PRECISIONS = { float32: Math.fround, float16: toFloat16 };

/** The panel's numbers for `settings`; see the module comment. */
export function compute({ seed, n, b, scale, large }) {
  const f32 = Math.fround;
  const { x, v } = row(seed, n, scale);
  const standard = safe(x, f32);
  const streamed = online(x, b, f32);
  const oStandard = weighted(standard, v, f32);
  const oOnePass = onePass(x, v, b, f32);
  const big = row(seed, n, large).x;
  const overflow = {};
  for (const [name, round] of Object.entries(PRECISIONS)) {
    overflow[name] = { naive: naive(big, round), safe: safe(big, round) };
  }
  return {
    x: x.map(f32),
    v: v.map(f32),
    standard,
    online: streamed.y,
    diff: standard.map((t, j) => Math.abs(t - streamed.y[j])),
    maxDiff: maxAbsDiff(standard, streamed.y),
    oStandard,
    oOnePass,
    tiles: streamed.tiles,
    large: big,
    overflow,
  };
}
