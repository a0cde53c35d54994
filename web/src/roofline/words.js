// Numbers in words for the roofline section (d3-format): one place for how a count, a rate, a time or a ratio reads.
// Bytes and times read as `kernelviz roofline` prints them (kernelviz.attention.words.size, commands.roofline._seconds),
// from the same tables of units (words.py's BINARY_UNITS and TIME_UNITS, generated into web/.gen/words.js by
// kernelviz/attention/js_words.py): bytes in binary units (KiB to EiB), times in days, h, min, s, ms, µs or ns,
// each to 3 significant digits as Python's '.3g' writes them; tests/roofline/test_roofline_words.py holds them equal.
import { format } from 'd3-format';
import { BINARY_UNITS, TIME_UNITS } from '#gen/words.js';

const whole = format(',');
const si = format('.3~s');

/** `n` with 3 significant digits and an SI prefix before `unit`: 17.9 T, 989 TFLOP/s. */
export function prefixed(n, unit) {
  const t = si(n);
  return (/[0-9]$/.test(t) ? `${t} ${unit}` : `${t.slice(0, -1)} ${t.slice(-1)}${unit}`).trim();
}

/** A count for people: exact with separators below 100,000, else 3 significant digits with an SI prefix. */
export const amount = (n, unit) => (n < 1e5 ? `${whole(n)} ${unit}`.trim() : prefixed(n, unit));

/** `x` as Python's format(x, '.{digits}g'): 0.392, 12.3, 1e+03 (trailing zeros dropped). */
export function pyG(x, digits = 3) {
  if (x === 0) return '0';
  const [mantissa, exp] = x.toExponential(digits - 1).split('e');
  const e = Number(exp);
  const strip = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
  if (e < -4 || e >= digits) return `${strip(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return strip(x.toFixed(Math.max(0, digits - 1 - e)));
}

/** `v` to one decimal as Python writes it: an exact tie (1.25, a number of bytes over 1024) to the even digit. */
function oneDecimal(v) {
  const tenths = v * 10; // exact: v is a whole number over a power of 2
  if (tenths - Math.floor(tenths) !== 0.5) return v.toFixed(1);
  const even = Math.floor(tenths) % 2 === 0 ? Math.floor(tenths) : Math.ceil(tenths);
  return (even / 10).toFixed(1);
}

/** `n` bytes in binary units, as the command line says them: 800 B, 1.4 KiB, 2.0 GiB (one decimal). */
export function bytes(n) {
  let v = n;
  const [ones, largest] = [BINARY_UNITS[0], BINARY_UNITS.at(-1)];
  for (const unit of BINARY_UNITS) {
    if (v < 1024 || unit === largest) return unit === ones ? `${v} ${ones}` : `${oneDecimal(v)} ${unit}`;
    v /= 1024;
  }
  return null; // unreachable
}

/** Seconds as the command line says them: 1.2 s, 12.3 ms, 4.56 µs, else ns: 0.392 ns (3 significant digits). */
export function time(s) {
  for (const [unit, scale] of TIME_UNITS) if (s >= scale) return `${pyG(s / scale)} ${unit}`;
  return `${pyG(s / 1e-9)} ns`;
}

/** FLOPs per byte, 3 significant digits: 64.1. */
export const perByte = format('.3~g');
