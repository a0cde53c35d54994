// Numbers as the page prints them: bytes in binary units, counts with thousands separators, small differences
// in scientific notation.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 33554432 -> "32 MiB"; 1536 -> "1.5 KiB"; three significant digits at most. */
export function bytes(n) {
  let k = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && k < UNITS.length - 1) {
    v /= 1024;
    k++;
  }
  return `${k === 0 ? v : Number(v.toPrecision(3))} ${UNITS[k]}`;
}

/** 1234567 -> "1,234,567". */
export function count(n) {
  return Math.round(n).toLocaleString('en-US');
}

/** 1.1920928955078125e-7 -> "1.2e-7"; 0 -> "0". */
export function tiny(x) {
  if (x === 0) return '0';
  if (!Number.isFinite(x)) return String(x);
  return x.toExponential(1).replace('e-', 'e−');
}

/** 65536 -> "64K", 131072 -> "128K", 96 -> "96". */
export function seqLength(n) {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}K` : String(n);
}

/** A ratio like "27×" (or "1.6×" below 10). */
export function ratio(x) {
  return `${x >= 10 ? Math.round(x) : Number(x.toPrecision(2))}×`;
}
