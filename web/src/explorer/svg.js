// A tiny SVG element builder: el('rect', {x: 1, y: 2}, [children]). Text goes in as text, never as markup.
// While the explorer drawn at build time is taken over, el() takes the drawn element in the new one's place
// (adopt.js).

import { attributes, children, mark, take } from './adopt.js';

const NS = 'http://www.w3.org/2000/svg';

/** `attrs` with a fill or stroke that is a custom property (palette.js: "var(--kv-q)") moved into `style`. */
function painted(attrs) {
  const out = {};
  const style = [];
  for (const [k, v] of Object.entries(attrs)) {
    if ((k === 'fill' || k === 'stroke') && typeof v === 'string' && v.startsWith('var(')) style.push(`${k}: ${v}`);
    else out[k] = v;
  }
  if (style.length) out.style = style.join('; ');
  return out;
}

export function el(name, attrs = {}, kids = []) {
  const { id, found } = take('s', name);
  const node = found || document.createElementNS(NS, name);
  attributes(node, painted(attrs));
  children(node, kids, Boolean(found));
  mark(node, id);
  return node;
}

/** A <text> with its content. */
export function label(text, attrs) {
  return el('text', attrs, [String(text)]);
}
