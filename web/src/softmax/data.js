// The panel's data: a documented generator, so that anyone can reproduce the numbers (the tests do, in Python).
//
//   state_0 = seed (an integer 0 ≤ seed < 2^32)
//   state_{k+1} = (1664525 · state_k + 1013904223) mod 2^32        (the LCG of Numerical Recipes)
//   u_k = state_{k+1} / 2^32                                         (uniform in [0, 1))
//
// A row of n scores is x_j = scale · (2 u_j − 1) for j < n, and its n values are v_j = 2 u_{n+j} − 1: the first
// n draws make x, the next n make v. Every number is then rounded to the precision it is used in.

/** The first `count` uniforms u_0, u_1, … of the generator started at `seed`. */
export function uniforms(seed, count) {
  let state = seed >>> 0;
  const out = [];
  for (let k = 0; k < count; k++) {
    state = (Math.imul(1664525, state) + 1013904223) >>> 0;
    out.push(state / 2 ** 32);
  }
  return out;
}

/** Scores x (times `scale`) and values v of one row of n, both in [-1, 1) before scaling. */
export function row(seed, n, scale) {
  const u = uniforms(seed, 2 * n);
  return {
    x: u.slice(0, n).map((t) => scale * (2 * t - 1)),
    v: u.slice(n).map((t) => 2 * t - 1),
  };
}
