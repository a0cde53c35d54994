// The softmax variants of the page, in a chosen precision: `round` rounds every intermediate result as a kernel
// storing it in that precision would (Math.fround for float32, toFloat16 for float16, x => x for float64).
// Sums run left to right, one term at a time, so the tests can repeat them exactly.
//
//   naive   y_j = e^{x_j} / Σ e^{x_k}                                    overflows once e^{x_j} does
//   safe    m = max x;  l = Σ e^{x_k − m};  y_j = e^{x_j − m} / l        three passes over x
//   online  per tile: m_new = max(m, tile max);  l = l·e^{m − m_new} + Σ_tile e^{x_k − m_new};  then y as safe
//   output  the one-pass form that carries o′ = Σ y_j v_j as well (the recurrence of the page)

const exp = (round, t) => round(Math.exp(round(t)));

function max(x) {
  return x.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** Softmax without the shift: NaN and Infinity on large logits. */
export function naive(x, round) {
  const xs = x.map(round);
  const e = xs.map((t) => exp(round, t));
  let l = 0;
  for (const t of e) l = round(l + t);
  return e.map((t) => round(t / l));
}

/** Safe softmax, three passes: the max, the sum of e^{x − max}, the division. */
export function safe(x, round) {
  const xs = x.map(round);
  const m = max(xs);
  let l = 0;
  for (const t of xs) l = round(l + exp(round, t - m));
  return xs.map((t) => round(exp(round, t - m) / l));
}

/**
 * Online softmax over tiles of b scores: one pass for m and l together, one to divide. Returns y and, per tile,
 * {tile, tileMax, mOld, mNew, factor, l}: the factor e^{mOld − mNew} that rescaled l (0 on the first tile).
 */
export function online(x, b, round) {
  const xs = x.map(round);
  let m = -Infinity;
  let l = 0;
  const tiles = [];
  for (let start = 0, tile = 0; start < xs.length; start += b, tile++) {
    const part = xs.slice(start, start + b);
    const tileMax = max(part);
    const mNew = Math.max(m, tileMax);
    const factor = exp(round, m - mNew);
    let sum = 0;
    for (const t of part) sum = round(sum + exp(round, t - mNew));
    l = round(round(l * factor) + sum);
    tiles.push({ tile, tileMax, mOld: m, mNew, factor, l });
    m = mNew;
  }
  return { y: xs.map((t) => round(exp(round, t - m) / l)), tiles };
}

/** o = Σ y_j v_j from y, left to right. */
export function weighted(y, v, round) {
  let o = 0;
  for (let j = 0; j < y.length; j++) o = round(o + round(y[j] * round(v[j])));
  return o;
}

/** The one-pass form: o′ carried with m and l, rescaled by l_old e^{m_old − m_new} / l_new per tile. */
export function onePass(x, v, b, round) {
  const xs = x.map(round);
  const vs = v.map(round);
  let m = -Infinity;
  let l = 0;
  let o = 0;
  for (let start = 0; start < xs.length; start += b) {
    const part = xs.slice(start, start + b);
    const mNew = Math.max(m, max(part));
    const factor = exp(round, m - mNew);
    let sum = 0;
    for (const t of part) sum = round(sum + exp(round, t - mNew));
    const lNew = round(round(l * factor) + sum);
    let add = 0;
    for (let c = 0; c < part.length; c++) add = round(add + round(round(exp(round, part[c] - mNew) / lNew) * vs[start + c]));
    o = round(round(round(o * round(l * factor)) / lNew) + add);
    m = mNew;
    l = lNew;
  }
  return o;
}

/** The largest |a_j − b_j|. */
export function maxAbsDiff(a, b) {
  return a.reduce((worst, t, j) => Math.max(worst, Math.abs(t - b[j])), 0);
}
