// The explorer's settings: their allowed values, the defaults, and the URL that carries them all.
//
// Every control lives in the query string, so a setting can be shared by its link:
//   ?N=4096&d=64&Br=64&Bc=64&dtype=float16&sram=a100&causal=0&i=1&phase=0&j=0
// `sram` is a preset key (budgets.js) or a custom budget in KiB; i is the query tile, j the K/V tile, phase the
// kernel phase (0 load Q, 1 score, 2 update, 3 accumulate). A value that is missing or not allowed takes its
// default; `normalize` then keeps i, j and phase inside the tiles of the current sizes.

import { CUSTOM_MAX_KIB, CUSTOM_MIN_KIB, PRESETS } from './budgets.js';
import { cdiv, tiles_visited } from './formulas.js';

export const N_MIN = 64;
export const N_MAX = 131072;
export const HEAD_DIMS = [32, 64, 96, 128, 256];
export const BLOCK_SIZES = [16, 32, 64, 128, 256];
export const DTYPES = { float32: 4, float16: 2, bfloat16: 2 }; // bytes per stored element
export const PHASE_COUNT = 4;

export const DEFAULTS = Object.freeze({
  N: 4096,
  d: 64,
  Br: 64,
  Bc: 64,
  dtype: 'float16',
  sram: 'a100',
  causal: false,
  i: 1,
  phase: 0,
  j: 0,
});

const KEYS = Object.keys(DEFAULTS);

function wholeNumber(text) {
  return /^\d+$/.test(text ?? '') ? Number(text) : null;
}

const PARSERS = {
  N: (t) => {
    const n = wholeNumber(t);
    return n !== null && n >= N_MIN && n <= N_MAX ? n : null;
  },
  d: (t) => (HEAD_DIMS.includes(wholeNumber(t)) ? Number(t) : null),
  Br: (t) => (BLOCK_SIZES.includes(wholeNumber(t)) ? Number(t) : null),
  Bc: (t) => (BLOCK_SIZES.includes(wholeNumber(t)) ? Number(t) : null),
  dtype: (t) => (Object.hasOwn(DTYPES, t ?? '') ? t : null),
  sram: (t) => {
    if (Object.hasOwn(PRESETS, t ?? '')) return t;
    const kib = wholeNumber(t);
    return kib !== null && kib >= CUSTOM_MIN_KIB && kib <= CUSTOM_MAX_KIB ? kib : null;
  },
  causal: (t) => ({ 1: true, true: true, 0: false, false: false })[t] ?? null,
  i: wholeNumber,
  phase: wholeNumber,
  j: wholeNumber,
};

/** The state a query string asks for (a URLSearchParams or a string like location.search). */
export function parse(search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const key of KEYS) state[key] = PARSERS[key](params.get(key)) ?? DEFAULTS[key];
  return normalize(state);
}

/** The query string (with its "?") that `parse` turns back into `state`. */
export function serialize(state) {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    const v = state[key];
    params.set(key, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  return `?${params}`;
}

/** The K/V tile indices query tile i visits (all of them, or those not above the diagonal when causal). */
export function visitedTiles(state) {
  const n = tiles_visited(state.i, state.N, state.Br, state.Bc, null, state.causal);
  return Array.from({ length: n }, (_, j) => j);
}

/** A copy of `state` with i, j and phase clamped to the tiles of its sizes. */
export function normalize(state) {
  const s = { ...state };
  s.i = Math.min(s.i, cdiv(s.N, s.Br) - 1);
  const visited = tiles_visited(s.i, s.N, s.Br, s.Bc, null, s.causal);
  s.j = Math.min(s.j, Math.max(visited - 1, 0));
  s.phase = Math.min(s.phase, PHASE_COUNT - 1);
  return s;
}

// N on a log scale: four stops per octave (x1, x1.25, x1.5, x1.75), from 64 to 128K, all whole numbers.
export const N_STOPS = 4 * Math.log2(N_MAX / N_MIN);

/** Slider stop p (0..N_STOPS) -> N. */
export function nFromStop(p) {
  const octave = Math.floor(p / 4);
  return N_MIN * 2 ** octave * (1 + (p % 4) / 4);
}

/** N -> the nearest slider stop on the log scale. */
export function stopFromN(n) {
  let best = 0;
  for (let p = 1; p <= N_STOPS; p++) {
    if (Math.abs(Math.log(nFromStop(p) / n)) < Math.abs(Math.log(nFromStop(best) / n))) best = p;
  }
  return best;
}
