// A tiny SVG element builder: el('rect', {x: 1, y: 2}, [children]). Text goes in as text, never as markup.
// While the explorer drawn at build time is taken over, el() takes the drawn element in the new one's place
// (adopt.js).

import { attributes, children, mark, take } from './adopt.js';

const NS = 'http://www.w3.org/2000/svg';

export function el(name, attrs = {}, kids = []) {
  const { id, found } = take('s', name);
  const node = found || document.createElementNS(NS, name);
  attributes(node, attrs);
  children(node, kids, Boolean(found));
  mark(node, id);
  return node;
}

/** A <text> with its content. */
export function label(text, attrs) {
  return el('text', attrs, [String(text)]);
}
