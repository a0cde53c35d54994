// Standard softmax against streaming online softmax, on real random data, in float32 or float64.
//
// Both sides see the same row of N logits x and one column of values v, and produce the probabilities p and
// the attention output o = sum_i p_i v_i:
//   standard: m = max(x); e_i = exp(x_i - m); l = sum e_i; p_i = e_i / l; o = sum p_i v_i      (two passes;
//             the sums are tree reductions, as a GPU block reduces a row)
//   online:   stream blocks of Bc keys, carrying the running max m, the running sum l and the unnormalized
//             output acc; a block with a larger max rescales l and acc by exp(m_old - m_new); at the end
//             o = acc / l and p_i = exp(x_i - m) / l.
// In float32 every intermediate is rounded with Math.fround, as a float32 kernel would store it.

/** A small seeded PRNG (mulberry32): the same seed gives the same numbers on every browser. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n standard normal numbers (Box-Muller) times `scale` plus `offset`, as a Float32Array. */
export function gaussian(n, seed, scale = 1, offset = 0) {
  const rand = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const t = 2 * Math.PI * rand();
    out[i] = offset + scale * r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = offset + scale * r * Math.sin(t);
  }
  return out;
}

const identity = (x) => x;

/** Sum of a[0..n) by a pairwise tree, each partial sum rounded by `round`. Overwrites a. */
function treeSum(a, round) {
  let n = a.length;
  if (n === 0) return 0;
  while (n > 1) {
    const half = n >> 1;
    for (let i = 0; i < half; i++) a[i] = round(a[2 * i] + a[2 * i + 1]);
    if (n & 1) a[half] = a[n - 1];
    n = half + (n & 1);
  }
  return a[0];
}

/** Standard (safe) softmax of x and the output against v. round: Math.fround for float32, identity for float64. */
export function standardSoftmax(x, v, round = Math.fround) {
  const n = x.length;
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > m) m = x[i];
  const e = new Float64Array(n);
  for (let i = 0; i < n; i++) e[i] = round(Math.exp(round(x[i] - m)));
  const l = treeSum(e.slice(), round);
  const p = new Float64Array(n);
  const terms = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    p[i] = round(e[i] / l);
    terms[i] = round(p[i] * v[i]);
  }
  return { p, o: treeSum(terms, round), m, l };
}

/** Streaming online softmax over blocks of `block` keys; see the module comment. */
export function onlineSoftmax(x, v, block, round = Math.fround) {
  const n = x.length;
  let m = -Infinity;
  let l = 0;
  let acc = 0;
  for (let c0 = 0; c0 < n; c0 += block) {
    const c1 = Math.min(c0 + block, n);
    let mBlock = -Infinity;
    for (let c = c0; c < c1; c++) if (x[c] > mBlock) mBlock = x[c];
    const mNew = Math.max(m, mBlock);
    const alpha = round(Math.exp(round(m - mNew))); // exp(-inf) = 0 on the first block
    let lBlock = 0;
    let accBlock = 0;
    for (let c = c0; c < c1; c++) {
      const e = round(Math.exp(round(x[c] - mNew)));
      lBlock = round(lBlock + e);
      accBlock = round(accBlock + round(e * v[c]));
    }
    l = round(round(alpha * l) + lBlock);
    acc = round(round(alpha * acc) + accBlock);
    m = mNew;
  }
  const p = new Float64Array(n);
  for (let i = 0; i < n; i++) p[i] = round(round(Math.exp(round(x[i] - m))) / l);
  return { p, o: round(acc / l), m, l };
}

/** Softmax without the max shift: exp(x_i) / sum exp(x_j). Overflows to Infinity / NaN on large logits. */
export function naiveSoftmaxFinite(x, round = Math.fround) {
  let l = 0;
  for (let i = 0; i < x.length; i++) l = round(l + round(Math.exp(x[i])));
  return Number.isFinite(l) && l > 0;
}

function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

// The random rows of the last few sizes: dragging N back and forth does not draw them again.
const rows = new Map();
function cached(n, seed, scale, offset) {
  const key = `${n}:${seed}:${scale}:${offset}`;
  if (!rows.has(key)) {
    if (rows.size >= 16) rows.delete(rows.keys().next().value);
    rows.set(key, gaussian(n, seed, scale, offset));
  }
  return rows.get(key);
}

/** The cases the page shows: typical logits, and large logits (offset 1000, spread 30) that overflow a naive exp. */
export const CASES = [
  { id: 'random', label: 'random logits', scale: 2, offset: 0 },
  { id: 'large', label: 'large logits (≈1000)', scale: 30, offset: 1000 },
];

/**
 * Compare the two on one row of n logits for each case; block is the online softmax's tile width (Bc).
 * Returns [{id, label, dp, do, naiveFinite}] where dp = max |p_standard - p_online| and do = |o_standard - o_online|.
 */
export function softmaxCheck(n, block, { float32 = true, seed = 2024 } = {}) {
  const round = float32 ? Math.fround : identity;
  return CASES.map((c, k) => {
    const x = cached(n, seed + 2 * k, c.scale, c.offset);
    const v = cached(n, seed + 2 * k + 1, 1, 0);
    const std = standardSoftmax(x, v, round);
    const onl = onlineSoftmax(x, v, block, round);
    return {
      id: c.id,
      label: c.label,
      dp: maxAbsDiff(std.p, onl.p),
      do: Math.abs(std.o - onl.o),
      naiveFinite: naiveSoftmaxFinite(x, round),
    };
  });
}
