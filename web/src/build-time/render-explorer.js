// The overview's explorer as the page opens with it, drawn at build time by the explorer's own code
// (web/src/explorer/app.js) on the DOM shim (dom-shim.js), for the site builder's embedded V8
// (kernelviz/site/explorer_drawn.py):
//   kvRenderExplorer() -> JSON of {html}: the markup of the explorer at its default settings (no query string), on a
//   wide screen's canvas, each element marked with its place in the order of making (adopt.js, data-kvx), the root
//   marked data-prerendered with the state it shows (data-state, as the URL writes it).
// The page shows it from its first paint; the explorer's runtime then takes these elements over as they are
// (adopt.js) instead of drawing them again. The softmax check, which runs after the first frame in the page, is
// shown pending.
import { documentShim, container, markup } from './dom-shim.js';
import { numbered } from '../explorer/adopt.js';
import { mount } from '../explorer/app.js';
import { serialize } from '../explorer/state.js';

globalThis.document = documentShim;
globalThis.requestAnimationFrame ??= () => 0;
globalThis.setTimeout ??= () => 0;
globalThis.clearTimeout ??= () => {};
globalThis.performance ??= { now: () => 0, measure() {} };
globalThis.ResizeObserver ??= class {
  observe() {}
};
// what state.js asks of URLSearchParams (V8 alone has none): read a query string, set fields, write one
globalThis.URLSearchParams ??= class {
  constructor(search = '') {
    const pairs = String(search).replace(/^\?/, '').split('&').filter(Boolean);
    this.fields = new Map(pairs.map((p) => p.split('=').map(decodeURIComponent)));
  }
  get(key) {
    return this.fields.has(key) ? this.fields.get(key) : null;
  }
  set(key, value) {
    this.fields.set(key, String(value));
  }
  toString() {
    return [...this.fields].map((kv) => kv.map(encodeURIComponent).join('=')).join('&');
  }
};

/** A <select>'s value as markup shows one: the `selected` option (the shim keeps value as an attribute). */
function selectedOptions(node) {
  for (const child of node.children) {
    if (child.localName === 'select' && child.getAttribute('value') !== null) {
      for (const option of child.children) {
        if (option.getAttribute('value') === child.getAttribute('value')) option.setAttribute('selected', '');
      }
      child.removeAttribute('value');
    }
    selectedOptions(child);
  }
}

globalThis.kvRenderExplorer = () => {
  globalThis.document = documentShim; // its own: other build-time bundles in the same V8 set theirs
  const root = container();
  const explorer = numbered(() => mount(root, { location: { search: '', hash: '' }, history: { replaceState() {} } }));
  const kvx = root.children[0];
  selectedOptions(kvx);
  kvx.setAttribute('data-prerendered', '');
  kvx.setAttribute('data-state', serialize(explorer.state()));
  return JSON.stringify({ html: markup(kvx) });
};
