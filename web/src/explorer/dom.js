// The explorer's element builder (lib/dom.js serves the rest of the site): it adopts what the build drew.
// h('label', {for: 'x'}, ['text', child]). Strings become text nodes, never markup.
// While the explorer drawn at build time is taken over, h() takes the drawn element in the new one's place (adopt.js).

import { attributes, children, mark, take } from './adopt.js';

export { setText } from './adopt.js';

export function h(name, attrs = {}, kids = []) {
  const { id, found } = take('h', name);
  const node = found || document.createElement(name);
  attributes(node, attrs);
  children(node, kids, Boolean(found));
  mark(node, id);
  return node;
}

/** <select> options from [value, text] pairs. */
export function options(pairs) {
  return pairs.map(([value, text]) => h('option', { value }, [String(text)]));
}
