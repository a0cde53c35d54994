// Building HTML elements, the one helper of the web code: h('button', {type: 'button', class: 'x', onclick}, 'Run').
// An attribute that is null, undefined or false is left out, true is present and empty; `class` sets the class,
// `on…` adds a listener. Children are elements or text (arrays of them are flattened); text goes in as text, never
// as markup.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) node.append(typeof child === 'object' ? child : String(child));
  return node;
}

/** <option>s of a <select>, from [value, text] pairs. */
export function options(pairs) {
  return pairs.map(([value, text]) => h('option', { value }, text));
}
