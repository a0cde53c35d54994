// Numbers in words for the roofline section (d3-format): one place for how a count, a rate, a time or a ratio reads.
import { format } from 'd3-format';

const whole = format(',');
const si = format('.3~s');

/** `n` with 3 significant digits and an SI prefix before `unit`: 275 GB, 17.9 T, 989 TFLOP/s, 12.3 µs. */
export function prefixed(n, unit) {
  const t = si(n);
  return (/[0-9]$/.test(t) ? `${t} ${unit}` : `${t.slice(0, -1)} ${t.slice(-1)}${unit}`).trim();
}

/** A count for people: exact with separators below 100,000, else 3 significant digits with an SI prefix. */
export const amount = (n, unit) => (n < 1e5 ? `${whole(n)} ${unit}`.trim() : prefixed(n, unit));
/** Seconds with an SI prefix: 12.3 µs. */
export const time = (s) => prefixed(s, 's');
/** FLOPs per byte, 3 significant digits: 64.1. */
export const perByte = format('.3~g');
