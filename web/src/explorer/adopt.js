// Taking over the explorer drawn at build time (web/src/build-time/render-explorer.js) instead of drawing it again.
//
// The builder runs the explorer's own code on a DOM shim with `numbering` on: each element made by h() (dom.js) or
// el() (svg.js) is marked with its place in the order of making, data-kvx="h17" or "s5". In the page, the mount and
// its first render run `startAdopting(drawn)` ... `stopAdopting()`: the k-th element made is then the drawn element marked k, when it has
// the tag asked for, given the attributes asked for (those it has already are left alone) and its children only
// where they differ. The same code on the same state makes the same elements in the same order, so the explorer is
// taken over as drawn: no element is made, moved or replaced, and nothing is painted again. A state other than the
// build's (a link with settings), or a canvas of another width (a phone), gets new elements where they differ.

let pool = null; // while adopting: data-kvx -> drawn element
const taken = new Set(); // the drawn elements taken over so far
let numbering = false; // at build time: mark each element made
const made = { h: 0, s: 0 }; // elements made so far by each builder, since the mount began

function begin() {
  made.h = 0;
  made.s = 0;
}

/** The element to use for the next one `kind` ('h' or 's') makes with `tag`: a drawn one, or null to make one. */
export function take(kind, tag) {
  const id = `${kind}${made[kind]++}`;
  if (numbering) return { id };
  const drawn = pool?.get(id);
  const found = drawn && drawn.localName === tag && !taken.has(drawn) ? drawn : null;
  if (found) taken.add(found);
  return { id, found };
}

/** Mark `node` with its `id` (at build time). */
export function mark(node, id) {
  if (numbering) node.setAttribute('data-kvx', id);
}

/** Give the drawn element `node` the `children` (elements and strings), in order: only the children that differ are
 * replaced (none, when it is what was drawn). */
export function children(node, list) {
  if (!list.length) return; // (an element whose text is set after it is made, with setText)
  const have = [...node.childNodes];
  const same = (n, c) => (typeof c === 'string' ? n?.nodeType === 3 && n.data === c : n === c);
  if (have.length === list.length && list.every((c, k) => same(have[k], c))) return;
  node.replaceChildren(...list);
}

/** Append `nodes` to `parent`, each unless it is a child of `parent` already (a drawn one, in its place). */
export function append(parent, ...nodes) {
  for (const node of nodes) if (node.parentNode !== parent) parent.append(node);
}

/** Put `node` first in `parent`, unless it is there already. */
export function prepend(parent, node) {
  if (parent.firstChild !== node) parent.prepend(node);
}

/** Take over the elements of `drawn` (the explorer's root drawn at build time; null: make them all) from now until
 * `stopAdopting()`. */
export function startAdopting(drawn) {
  begin();
  taken.clear();
  pool = drawn ? new Map([drawn, ...drawn.querySelectorAll('[data-kvx]')].map((n) => [n.dataset.kvx, n])) : null;
}

/** End the takeover: a drawn element that was not taken (a state or size other than the build's) is removed. */
export function stopAdopting() {
  for (const node of pool?.values() ?? []) if (!taken.has(node) && node.isConnected) node.remove();
  pool = null;
  taken.clear();
}

/** Run `fn` making every element anew, even while adopting (a canvas of another width than the drawn one). */
export function anew(fn) {
  const kept = pool;
  pool = null;
  try {
    return fn();
  } finally {
    pool = kept;
  }
}

/** Run `fn` marking every element made (at build time). */
export function numbered(fn) {
  begin();
  numbering = true;
  try {
    return fn();
  } finally {
    numbering = false;
  }
}

/** Set `node`'s text to `value`, unless it is that text already (a drawn element keeps its text node). */
export function setText(node, value) {
  const s = String(value);
  if (node.textContent !== s) node.textContent = s;
}
