// The explorer's colours, one role each, named from the site's palette (kernelviz/pie/palette.json, made into the
// custom properties of assets/palette.css, light and dark): the same hues as the kernel pages' figures and
// equations, in either theme. A colour is "var(--kv-NAME)", which lib/svg.js's paint puts in an element's style (an SVG
// attribute cannot take var()).

const kv = (name) => `var(--kv-${name})`;

export const TILE = {
  Q: { fill: kv('q-fill'), stroke: kv('q') },
  K: { fill: kv('k-fill'), stroke: kv('k') },
  V: { fill: kv('v-fill'), stroke: kv('v') },
  S: { fill: kv('s-1'), stroke: kv('s') },
  O: { fill: kv('o-1'), stroke: kv('o') },
  m: { fill: kv('m-1'), stroke: kv('m') },
  l: { fill: kv('l-1'), stroke: kv('l') },
};

export const HBM = { fill: kv('hbm'), stroke: kv('stale'), text: kv('muted') }; // cells left in HBM: dim
export const INK = kv('ink');
export const MUTED = kv('muted');
export const OVER = { fill: 'var(--kvx-over-fill)', stroke: 'var(--kvx-over)' }; // a tile past the SRAM budget

/** The palette entry of an SRAM tile name: Qi -> Q, Sij -> S, mi -> m. */
export function tileColor(name) {
  return TILE[name[0]];
}
