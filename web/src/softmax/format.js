// Numbers as the panel prints them: NaN as NaN, infinities as ∞ and −∞ (the overflow table is about them).

function nonFinite(x) {
  if (Number.isNaN(x)) return 'NaN';
  return x > 0 ? '∞' : '−∞';
}

/** 5 significant digits; 0 stays 0. */
export function value(x) {
  if (!Number.isFinite(x)) return nonFinite(x);
  if (x === 0) return '0';
  return String(Number(x.toPrecision(5))).replace('-', '−');
}

/** A small difference: 0, or two digits in scientific notation. */
export function diff(x) {
  if (!Number.isFinite(x)) return nonFinite(x);
  if (x === 0) return '0';
  return x.toExponential(1).replace('e-', 'e−');
}
