// Closed-form FLOP counts: a line-for-line port of kernelviz/attention/flops.py, for the roofline section.
//
// Same names, same argument order (keyword defaults become trailing positional defaults; None is null), same
// results: tests/roofline/test_roofline_js.py runs this file under node and compares every function with its Python
// twin over a grid of sizes (ragged, causal and N = 32768 included). Change flops.py first. Each function returns
// {matmul, exp, other}: 2 per multiply-add of a matrix product; one per exponential or logarithm; one per other
// elementwise operation. Every count is an integer below 2**53, exact in a JS number.
import { cdiv, rows_seeing, tiles_visited } from '../explorer/formulas.js';

/** flops.count */
export function count(matmul = 0, exp = 0, other = 0) {
  return { matmul, exp, other };
}

/** flops.total: all operations of a {kind: count}. */
export function total(flops) {
  return flops.matmul + flops.exp + flops.other;
}

/** flops.visited: [rows, cols] of every query-block x K/V-tile pair an FA-style kernel computes. */
export function* visited(N, Br, Bc, N_kv = null, causal = false) {
  N_kv = N_kv ?? N;
  for (let i = 0; i < cdiv(N, Br); i++) {
    const rows = Math.min(Br, N - i * Br);
    const tiles = tiles_visited(i, N, Br, Bc, N_kv, causal);
    for (let j = 0; j < tiles; j++) yield [rows, Math.min(Bc, N_kv - j * Bc)];
  }
}

/** flops._tiles: scores and one online-softmax step on each [rows, cols] pair. */
function tiles(d, pairs) {
  const flops = count();
  for (const [r, c] of pairs) {
    flops.matmul += 4 * r * c * d;
    flops.exp += r * c + r;
    flops.other += r * c + 3 * r * c + 2 * r + 2 * r * d;
  }
  return flops;
}

const scale = (flops, h) => count(h * flops.matmul, h * flops.exp, h * flops.other);

/** flops.standard */
export function standard(N, d, Br, Bc, N_kv = null, causal = false, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const nn = N * N_kv;
  return scale(count(4 * nn * d, nn, nn + 4 * nn + N * d * cdiv(N_kv, Bc)), batch_heads);
}

/** flops.fa2 */
export function fa2(N, d, Br, Bc, N_kv = null, causal = false, batch_heads = 1) {
  const flops = tiles(d, visited(N, Br, Bc, N_kv, causal));
  const rows = rows_seeing(N, Br, Bc, N_kv, causal);
  flops.other += rows * d + rows;
  flops.exp += rows;
  return scale(flops, batch_heads);
}

/** flops.fa1 */
export function fa1(N, d, Br, Bc, N_kv = null, causal = false, batch_heads = 1) {
  const flops = count();
  for (const [r, c] of visited(N, Br, Bc, N_kv, causal)) {
    const step = tiles(d, [[r, c]]);
    flops.matmul += step.matmul;
    flops.exp += step.exp + r;
    flops.other += step.other + r * d + r * d + r;
  }
  return scale(flops, batch_heads);
}

/** flops.flash_decoding */
export function flash_decoding(
  N, d, Br, Bc, n_splits, N_kv = null, causal = false, batch_heads = 1, partials = 'unnormalized'
) {
  const flops = tiles(d, visited(N, Br, Bc, N_kv, causal));
  flops.other += 4 * n_splits * N + 2 * n_splits * N * d;
  flops.exp += n_splits * N;
  if (partials === 'lse') {
    flops.other += n_splits * N * (d + 1);
    flops.exp += n_splits * N;
  } else {
    flops.other += N * d;
  }
  return scale(flops, batch_heads);
}

/** flops.fa2_backward */
export function fa2_backward(N, d, Br, Bc, N_kv = null, causal = false, batch_heads = 1) {
  const flops = count(0, 0, 2 * N * d);
  for (const [r, c] of visited(N, Br, Bc, N_kv, causal)) {
    flops.matmul += 10 * r * c * d;
    flops.exp += r * c;
    flops.other += 4 * r * c + 2 * r * d + 3 * c * d;
  }
  return scale(flops, batch_heads);
}

/** flops.standard_backward */
export function standard_backward(N, d, Br, Bc, N_kv = null, causal = false, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const nn = N * N_kv;
  const Tr = cdiv(N, Br);
  const Tc = cdiv(N_kv, Bc);
  const other = 4 * nn + 2 * Tr * N_kv * d + Tc * N * d + N * d + N_kv * d;
  return scale(count(8 * nn * d, 0, other), batch_heads);
}

/** flops.paged_decoding */
export function paged_decoding(seq_lens, d, page_size, H_q, H_kv, n_splits = 1) {
  const g = Math.floor(H_q / H_kv);
  const flops = count();
  for (const n of seq_lens) {
    const pairs = [];
    for (let p = 0; p < cdiv(n, page_size); p++) pairs.push([g, Math.min(page_size, n - p * page_size)]);
    const pages = tiles(d, pairs);
    for (const kind of Object.keys(pages)) flops[kind] += H_kv * pages[kind];
    if (n_splits === 1) {
      flops.other += H_q * d + H_q;
      flops.exp += H_q;
    } else {
      flops.other += 4 * n_splits * H_q + 2 * n_splits * H_q * d + H_q * d;
      flops.exp += n_splits * H_q;
    }
  }
  return flops;
}
