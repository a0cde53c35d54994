// Between two states of a step: eased time, stagger, and how each field of an item goes from `start` to `move`.
//
// Numbers (x, y, w, h, font) interpolate. Colors given as #hex interpolate through rgba(); any other color (a name,
// rgb(), 'none') switches when the item's own move ends, and so do label, wrap and line. An item delayed by its
// stagger fraction d starts d·duration into the move and then takes the whole duration, so a step lasts
// duration·(1 + the largest delay).

const NUMBERS = ['x', 'y', 'w', 'h', 'font'];
const SWITCHED = ['label', 'wrap', 'line', 'fill', 'stroke', 'color'];

export const DURATION_MS = 600;

export function ease(t) {
  return t < 0.5 ? 4 * t * t * t : 1 - (-2 * t + 2) ** 3 / 2;
}

function parseHex(color) {
  const m = /^#([0-9a-f]{3,8})$/i.exec(color);
  if (!m) return null;
  let hex = m[1];
  if (hex.length === 3 || hex.length === 4) hex = [...hex].map((c) => c + c).join('');
  if (hex.length !== 6 && hex.length !== 8) return null;
  const n = (i) => parseInt(hex.slice(i, i + 2), 16);
  return [n(0), n(2), n(4), hex.length === 8 ? n(6) / 255 : 1];
}

/** The color `p` of the way from `a` to `b`, or null when they do not both parse as #hex. */
export function mixColor(a, b, p) {
  const ca = parseHex(a);
  const cb = parseHex(b);
  if (!ca || !cb) return null;
  const c = ca.map((v, i) => v + (cb[i] - v) * p);
  return `rgba(${Math.round(c[0])},${Math.round(c[1])},${Math.round(c[2])},${+c[3].toFixed(3)})`;
}

/** Item `a` moved the eased fraction `p` (0 to 1, exclusive of 1) of the way to item `b`. */
export function mixItem(a, b, p) {
  const out = { ...a };
  for (const key of NUMBERS) if (a[key] !== b[key]) out[key] = a[key] + (b[key] - a[key]) * p;
  for (const key of SWITCHED) {
    if (a[key] === b[key]) continue;
    const mixed = key === 'fill' || key === 'stroke' || key === 'color' ? mixColor(a[key], b[key], p) : null;
    if (mixed !== null) out[key] = mixed;
  }
  return out;
}

/** The length of a move whose items have the given delays (fractions of `duration`). */
export function totalTime(moving, duration) {
  return duration * (1 + Math.max(0, ...moving.map((m) => m.delay)));
}

/** The items at `t` ms into step `phases` (see Timeline.phases): the moving items part way, the rest at `start`. */
export function frameAt(phases, t, duration) {
  const items = phases.start.slice();
  for (const { index, delay } of phases.moving) {
    const local = Math.min(1, Math.max(0, (t - delay * duration) / duration));
    if (local >= 1) items[index] = phases.move[index];
    else if (local > 0) items[index] = mixItem(phases.start[index], phases.move[index], ease(local));
  }
  return items;
}
