// A tiny HTML element builder: h('label', {for: 'x'}, ['text', child]). Strings become text nodes, never markup.

export function h(name, attrs = {}, children = []) {
  const node = document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

/** <select> options from [value, text] pairs. */
export function options(pairs) {
  return pairs.map(([value, text]) => {
    const o = h('option', { value });
    o.textContent = text;
    return o;
  });
}
