// Building HTML elements, the one helper of the web code: h('button', {type: 'button', class: 'x', onclick}, 'Run').
// An attribute that is null, undefined or false is left out, true is present and empty; `on…` adds a listener.
// Children are elements or text (arrays of them are flattened); text goes in as text, never as markup.
// (The explorer wraps h and setAttributes to take over the elements its build drew: explorer/dom.js.)

export function h(tag, attrs = {}, ...children) {
  const node = setAttributes(document.createElement(tag), attrs);
  for (const child of children.flat()) node.append(typeof child === 'object' ? child : String(child));
  return node;
}

/** Give `node` the attributes `attrs`, read as h reads them, setting only those it does not have already; returns
 * `node`. */
export function setAttributes(node, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) {
      node.addEventListener(name.slice(2), value);
      continue;
    }
    const text = value === true ? '' : String(value);
    if (node.getAttribute(name) !== text) node.setAttribute(name, text);
  }
  return node;
}

/** <option>s of a <select>, from [value, text] pairs, made by `make` (h, or a builder that wraps it). */
export function options(pairs, make = h) {
  return pairs.map(([value, text]) => make('option', { value }, [String(text)]));
}
