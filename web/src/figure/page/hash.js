// The figure in the URL: the sizes the reader picked and the step, #N=12&Br=4&Bc=4&step=7 (sizes in the form's
// order, the step last), so that a link opens the figure at those sizes and that step. A hash of any other form (a
// heading's anchor, #the-algorithm) is not the figure's and is left alone.

const PAIR = /^([A-Za-z][A-Za-z0-9_]*)=(\d{1,9})$/;

/** {sizes: {name: int}, step: int | null} of `hash`, or null when it is not the figure's. */
export function readHash(hash = location.hash) {
  const body = hash.replace(/^#/, '');
  if (!body) return null;
  const state = { sizes: {}, step: null };
  for (const pair of body.split('&')) {
    const m = PAIR.exec(pair);
    if (!m) return null;
    if (m[1] === 'step') state.step = Number(m[2]);
    else state.sizes[m[1]] = Number(m[2]);
  }
  return state;
}

/** The step in `hash`, or null. */
export function stepFromHash(hash = location.hash) {
  return readHash(hash)?.step ?? null;
}

/** The hash for step `k` at `sizes` ({name: int}, in order; null or {}: the page's own sizes, not written). */
export function hashOf(k, sizes) {
  const pairs = Object.entries(sizes || {}).map(([name, v]) => `${name}=${v}`);
  if (k !== null && k !== undefined) pairs.push(`step=${k}`);
  return `#${pairs.join('&')}`;
}

/** Put step `k` at `sizes` in the URL, replacing the current entry (no history entry per step). */
export function writeHash(k, sizes) {
  const hash = hashOf(k, sizes);
  if (location.hash !== hash) history.replaceState(history.state, '', hash === '#' ? location.pathname + location.search : hash);
}
