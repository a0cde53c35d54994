// The explorer's element builder: lib/dom.js's, taking the element the build drew in the new one's place while the
// explorer drawn at build time is taken over (adopt.js). h('label', {for: 'x'}, ['text', child]).

import { h as make, options as madeOptions, setAttributes } from '../lib/dom.js';
import { children, mark, take } from './adopt.js';

export { setText } from './adopt.js';

export function h(name, attrs = {}, kids = []) {
  const { id, found } = take('h', name);
  const node = found ? setAttributes(found, attrs) : make(name, attrs, kids);
  if (found) children(found, kids);
  mark(node, id);
  return node;
}

/** <select> options from [value, text] pairs (adopted like every element h makes). */
export function options(pairs) {
  return madeOptions(pairs, h);
}
