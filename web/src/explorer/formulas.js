// Closed-form HBM byte counts: a line-for-line port of kernelviz/attention/formulas.py, for the explorer and the
// kernel pages' roofline (web/src/roofline/).
//
// Two implementations on purpose: the explorer recomputes these on every change of a slider, in a page that loads no
// Python, and kernelviz.attention stands alone (the CLI, the ledger's tests), with no V8 to run this file. So they are
// kept equal by a test instead: tests/explorer/test_explorer_formulas.py runs this file under node and checks that
// every export is a name of formulas.py with Python's parameters, order and defaults (None is null), and that every
// function gives Python's value on over 10,000 settings. The algorithms only the kernel pages'
// roofline uses (fa1 to paged_decoding) are compared in tests/roofline/test_roofline_js.py. Change formulas.py first.
//
// Names: N query rows, N_kv keys (default N), head dimension d, tiles of Br query rows and Bc keys, itemsize
// bytes per stored element (4 float32, 2 float16 or bfloat16); statistics are float32 always. Every count is an
// integer below 2**53, exact in a JS number.

export const STAT = 4; // bytes of a float32 statistic: m, l, L, partials

/** formulas.cdiv */
export function cdiv(a, b) {
  return Math.floor((a + b - 1) / b);
}

/** formulas.rw */
export function rw(read = 0, write = 0) {
  return { read, write };
}

/** formulas.total: the sum of the reads and writes of a {tensor: {read, write}} count. */
export function total(per_tensor) {
  return Object.values(per_tensor).reduce((sum, t) => sum + t.read + t.write, 0);
}

/** formulas.tiles_visited: K/V tiles block i of query rows visits (causal: not entirely above its diagonal). */
export function tiles_visited(i, N, Br, Bc, N_kv = null, causal = false) {
  N_kv = N_kv ?? N;
  const Tc = cdiv(N_kv, Bc);
  if (!causal) return Tc;
  const lastKey = Math.min((i + 1) * Br, N) - 1 + N_kv - N;
  if (lastKey < 0) return 0;
  return Math.min(Tc, Math.floor(lastKey / Bc) + 1);
}

/** formulas.rows_seeing: query rows in the blocks that visit at least one K/V tile. */
export function rows_seeing(N, Br, Bc, N_kv = null, causal = false) {
  let sum = 0;
  for (let i = 0; i < cdiv(N, Br); i++) {
    if (tiles_visited(i, N, Br, Bc, N_kv, causal) > 0) sum += Math.min(Br, N - i * Br);
  }
  return sum;
}

/** formulas.tile_interactions: query-key tile pairs computed, Tr * Tc or fewer with causal masking. */
export function tile_interactions(N, Br, Bc, N_kv = null, causal = false) {
  let sum = 0;
  for (let i = 0; i < cdiv(N, Br); i++) sum += tiles_visited(i, N, Br, Bc, N_kv, causal);
  return sum;
}

/** formulas.kv_rows_read: rows of K (and of V) read when every block of query rows reads each tile it visits. */
export function kv_rows_read(N, Br, Bc, N_kv = null, causal = false) {
  N_kv = N_kv ?? N;
  let sum = 0;
  for (let i = 0; i < cdiv(N, Br); i++) sum += Math.min(tiles_visited(i, N, Br, Bc, N_kv, causal) * Bc, N_kv);
  return sum;
}

/** formulas.score_matrix_bytes: bytes of the N x N_kv score matrix S that standard attention materializes. */
export function score_matrix_bytes(N, N_kv = null, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  return batch_heads * N * N_kv * itemsize;
}

/** formulas.compulsory: the least any exact attention moves: read Q, K, V once, write O once. */
export function compulsory(N, d, N_kv = null, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const h = batch_heads;
  const s = itemsize;
  return { Q: rw(h * N * d * s), K: rw(h * N_kv * d * s), V: rw(h * N_kv * d * s), O: rw(0, h * N * d * s) };
}

/** formulas.standard: S = QK^T, P = softmax(S), O = PV, with S and P written and read once; causal skips nothing. */
export function standard(N, d, Br, Bc, N_kv = null, causal = false, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const h = batch_heads;
  const s = itemsize;
  const Tr = cdiv(N, Br);
  const nn = h * N * N_kv * s;
  return {
    Q: rw(h * N * d * s),
    K: rw(h * Tr * N_kv * d * s),
    V: rw(h * Tr * N_kv * d * s),
    S: rw(nn, nn),
    P: rw(nn, nn),
    O: rw(0, h * N * d * s),
  };
}

/** formulas.fa2: Q read once (not by a block that sees no key), K and V once per block of Q rows, O, L written once. */
export function fa2(N, d, Br, Bc, N_kv = null, causal = false, itemsize = 4, batch_heads = 1) {
  const h = batch_heads;
  const s = itemsize;
  const kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s;
  const q = h * rows_seeing(N, Br, Bc, N_kv, causal) * d * s;
  return { Q: rw(q), K: rw(kv), V: rw(kv), O: rw(0, h * N * d * s), L: rw(0, h * N * STAT) };
}

/** formulas.q_rows_read: rows of Q moved when K/V is the outer loop (FA1, the FA2 backward). */
export function q_rows_read(N, Br, Bc, N_kv = null, causal = false) {
  let sum = 0;
  for (let i = 0; i < cdiv(N, Br); i++) sum += tiles_visited(i, N, Br, Bc, N_kv, causal) * Math.min(Br, N - i * Br);
  return sum;
}

/** formulas.fa1: K/V outer, Q inner; Qi, Oi, l_i, m_i read and written back at every step, O, l, m zeroed once. */
export function fa1(N, d, Br, Bc, N_kv = null, causal = false, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const h = batch_heads;
  const s = itemsize;
  const rows = q_rows_read(N, Br, Bc, N_kv, causal);
  return {
    Q: rw(h * rows * d * s),
    K: rw(h * N_kv * d * s),
    V: rw(h * N_kv * d * s),
    O: rw(h * rows * d * s, h * (N + rows) * d * s),
    l: rw(h * rows * STAT, h * (N + rows) * STAT),
    m: rw(h * rows * STAT, h * (N + rows) * STAT),
  };
}

/** formulas.fa2_backward: a preprocess (D, dQ zeroed), then K/V outer with Qi, dOi, L_i, D_i read and dQ_i added. */
export function fa2_backward(N, d, Br, Bc, N_kv = null, causal = false, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const h = batch_heads;
  const s = itemsize;
  const rows = h * q_rows_read(N, Br, Bc, N_kv, causal);
  return {
    Q: rw(rows * d * s),
    K: rw(h * N_kv * d * s),
    V: rw(h * N_kv * d * s),
    O: rw(h * N * d * s),
    dO: rw(h * N * d * s + rows * d * s),
    L: rw(rows * STAT),
    D: rw(rows * STAT, h * N * STAT),
    dQ: rw(rows * d * STAT, h * N * d * STAT + rows * d * STAT),
    dK: rw(0, h * N_kv * d * s),
    dV: rw(0, h * N_kv * d * s),
  };
}

/** formulas.standard_backward: five kernels reading back the stored P; causal skips nothing. */
export function standard_backward(N, d, Br, Bc, N_kv = null, causal = false, itemsize = 4, batch_heads = 1) {
  N_kv = N_kv ?? N;
  const h = batch_heads;
  const s = itemsize;
  const Tr = cdiv(N, Br);
  const Tc = cdiv(N_kv, Bc);
  const nn = h * N * N_kv * s;
  return {
    Q: rw(h * Tc * N * d * s),
    K: rw(h * Tr * N_kv * d * s),
    V: rw(h * Tr * N_kv * d * s),
    dO: rw(h * (Tc + 1) * N * d * s),
    P: rw(2 * nn),
    dP: rw(nn, nn),
    dS: rw(2 * nn, nn),
    dQ: rw(0, h * N * d * s),
    dK: rw(0, h * N_kv * d * s),
    dV: rw(0, h * N_kv * d * s),
  };
}

/** formulas.flash_decoding: the split kernel (Qi once per split, float32 partials: O, m, l, or with partials 'lse'
 * normalized O and one log-sum-exp), then the combine. */
export function flash_decoding(
  N, d, Br, Bc, n_splits, N_kv = null, causal = false, itemsize = 4, batch_heads = 1, partials = 'unnormalized'
) {
  const h = batch_heads;
  const s = itemsize;
  const kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s;
  const partialO = h * n_splits * N * d * STAT;
  const partialStat = h * n_splits * N * STAT;
  const stats = partials === 'lse'
    ? { lse_partial: rw(partialStat, partialStat) }
    : { m_partial: rw(partialStat, partialStat), l_partial: rw(partialStat, partialStat) };
  return {
    Q: rw(h * n_splits * N * d * s),
    K: rw(kv),
    V: rw(kv),
    O_partial: rw(partialO, partialO),
    ...stats,
    O: rw(0, h * N * d * s),
  };
}

/** formulas.paged_decoding: a batch of `seq_lens` in pages of page_size tokens, H_q query heads on H_kv K/V heads;
 * each page read once per K/V head with its block table entry; partials round-trip when n_splits > 1. */
export function paged_decoding(seq_lens, d, page_size, H_q, H_kv, n_splits = 1, itemsize = 4) {
  const batch = seq_lens.length;
  const s = itemsize;
  const pages = seq_lens.reduce((sum, n) => sum + cdiv(n, page_size), 0);
  const kv = H_kv * seq_lens.reduce((sum, n) => sum + n, 0) * d * s;
  const out = {
    Q: rw(n_splits * batch * H_q * d * s),
    K: rw(kv),
    V: rw(kv),
    block_table: rw(H_kv * pages * 4),
    seq_lens: rw(n_splits * batch * H_kv * 4),
  };
  if (n_splits > 1) {
    const partialO = batch * H_q * n_splits * d * STAT;
    const partialStat = batch * H_q * n_splits * STAT;
    Object.assign(out, { O_partial: rw(partialO, partialO), m_partial: rw(partialStat, partialStat) });
    out.l_partial = rw(partialStat, partialStat);
  }
  out.O = rw(0, batch * H_q * d * s);
  return out;
}
