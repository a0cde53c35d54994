// The explorer's SVG builder: lib/svg.js's el, set and paint, built bottom-up (el('rect', {x: 1, y: 2}, [children]))
// and taking the element the build drew in the new one's place while the explorer drawn at build time is taken over
// (adopt.js). Text goes in as text, never as markup. An attribute that is null, undefined or false is left out.

import { el as make, paint, set } from '../lib/svg.js';
import { children, mark, take } from './adopt.js';

export function el(name, attrs = {}, kids = []) {
  const { id, found } = take('s', name);
  const node = found ?? make(name);
  for (const [k, v] of Object.entries(attrs)) {
    const value = v === undefined || v === false ? null : v === true ? '' : v;
    if (k === 'fill' || k === 'stroke') paint(node, k, value);
    else set(node, k, value);
  }
  if (found) children(found, kids);
  else node.append(...kids);
  mark(node, id);
  return node;
}

/** A <text> with its content. */
export function label(text, attrs) {
  return el('text', attrs, [String(text)]);
}
