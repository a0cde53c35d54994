// The explorer's settings: their allowed values, the defaults, and the URL that carries them all.
//
// Every control lives in the query string, so a setting can be shared by its link:
//   ?N=4096&d=64&Br=64&Bc=64&dtype=float16&sram=a100&causal=0&i=1&phase=0&j=0
// `sram` is a preset key (budgets.js) or a custom budget in KiB; i is the query tile, j the K/V tile, phase the
// kernel phase (0 load Q, 1 score, 2 update, 3 accumulate).
//
// Every value of the URL is read the same way (`read`): a number outside what the explorer shows becomes the nearest
// value it does show (N=0 is 64, d=7 is 32, sram=99999 is 1024 KiB, i=999 the last query tile); a value that is not
// a number, or not one of the words the field takes, becomes the field's default; a missing one is the default with
// nothing to say. Each change is a correction {key, given, used, why} that the page shows the reader.

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

const nearest = (list, n) => list.reduce((best, x) => (Math.abs(x - n) < Math.abs(best - n) ? x : best));
const clamp = (n, low, high) => Math.min(Math.max(n, low), high);

// Each reader: the text of a URL value -> {value} when allowed, {value, why} when changed, or null when it is not a
// value of this field at all (then the default).
const between = (low, high, unit = '') => (t) => {
  const n = wholeNumber(t);
  if (n === null) return null;
  const value = clamp(n, low, high);
  return value === n ? { value } : { value, why: `the explorer shows ${low} to ${high}${unit}` };
};
const oneOf = (list, what) => (t) => {
  const n = wholeNumber(t);
  if (n === null) return null;
  const value = nearest(list, n);
  return value === n ? { value } : { value, why: `${what} are ${list.join(', ')}; the nearest is ${value}` };
};
const whole = (t) => {
  const n = wholeNumber(t);
  return n === null ? null : { value: n };
};

const READERS = {
  N: between(N_MIN, N_MAX),
  d: oneOf(HEAD_DIMS, 'head dimensions'),
  Br: oneOf(BLOCK_SIZES, 'block sizes'),
  Bc: oneOf(BLOCK_SIZES, 'block sizes'),
  dtype: (t) => (Object.hasOwn(DTYPES, t) ? { value: t } : null),
  sram: (t) => (Object.hasOwn(PRESETS, t) ? { value: t } : between(CUSTOM_MIN_KIB, CUSTOM_MAX_KIB, ' KiB')(t)),
  causal: (t) => {
    const value = { 1: true, true: true, 0: false, false: false }[t];
    return value === undefined ? null : { value };
  },
  i: whole,
  phase: whole,
  j: whole,
};

const KINDS = {
  N: 'a whole number',
  d: 'a whole number',
  Br: 'a whole number',
  Bc: 'a whole number',
  dtype: Object.keys(DTYPES).join(', '),
  sram: `${Object.keys(PRESETS).join(', ')} or a number of KiB`,
  causal: '1 or 0',
  i: 'a whole number',
  phase: 'a whole number',
  j: 'a whole number',
};

/** The text a state's field is written as in the URL. */
const shown = (v) => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));

/**
 * The state a query string asks for (a URLSearchParams or a string like location.search), and the corrections made
 * to it: {state, corrections: [{key, given, used, why}]}, in the order of the fields. See the top of this file.
 */
export function read(search) {
  const params = new URLSearchParams(search);
  const state = {};
  const corrections = [];
  for (const key of KEYS) {
    const given = params.get(key);
    if (given === null) {
      state[key] = DEFAULTS[key];
      continue;
    }
    const got = READERS[key](given);
    state[key] = got ? got.value : DEFAULTS[key];
    const why = got ? got.why : `expected ${KINDS[key]}; this is the default`;
    if (why) corrections.push({ key, given, used: shown(state[key]), why });
  }
  const normal = normalize(state);
  for (const key of ['i', 'j', 'phase']) {
    if (normal[key] === state[key] || params.get(key) === null) continue;
    const said = corrections.find((c) => c.key === key); // a default that the sizes then clamp: one correction
    if (said) Object.assign(said, { used: shown(normal[key]), why: `${said.why}, and ${limitOf(key, normal)}` });
    else corrections.push({ key, given: params.get(key), used: shown(normal[key]), why: limitOf(key, normal) });
  }
  corrections.sort((a, b) => KEYS.indexOf(a.key) - KEYS.indexOf(b.key));
  return { state: normal, corrections };
}

function limitOf(key, s) {
  if (key === 'phase') return `the phases are 0 to ${PHASE_COUNT - 1}`;
  if (key === 'i') return `N=${s.N} with Br=${s.Br} has query tiles 0 to ${cdiv(s.N, s.Br) - 1}`;
  return `query tile ${s.i} visits K/V tiles 0 to ${s.j}`;
}

/** The state a query string asks for (see `read`). */
export function parse(search) {
  return read(search).state;
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
