// IEEE 754 binary16 ("half", float16) rounding of a JavaScript number, round to nearest, ties to even.
//
// A half has 1 sign bit, 5 exponent bits and 10 fraction bits: the largest finite value is 65504, the smallest
// normal 2^-14, the smallest subnormal 2^-24. The rounding works on the double directly (rounding to float32
// first and then to half could round twice and land on the wrong neighbour).

export const F16_MAX = 65504;
const MIN_NORMAL = 2 ** -14;
const OVERFLOW = 65520; // halfway between 65504 and 2^16: ties to even go up, and 2^16 is not a half

/** Round a non-negative double to the nearest integer, ties to even. Exact for every double. */
function roundHalfEven(q) {
  const f = Math.floor(q);
  const rest = q - f;
  if (rest > 0.5) return f + 1;
  if (rest < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The float16 value nearest to x (ties to even), as a number: ±Infinity past 65504, NaN stays NaN. */
export function toFloat16(x) {
  if (Number.isNaN(x) || x === 0 || !Number.isFinite(x)) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  if (a >= OVERFLOW) return sign * Infinity;
  let quantum = 2 ** -24; // the spacing of subnormals, and of normals in [2^-14, 2^-13)
  if (a >= MIN_NORMAL) {
    let e = Math.floor(Math.log2(a));
    if (2 ** e > a) e -= 1; // log2 can round up just below a power of two
    if (2 ** (e + 1) <= a) e += 1;
    quantum = 2 ** (e - 10);
  }
  return sign * roundHalfEven(a / quantum) * quantum; // a / quantum and the product are exact (powers of two)
}
