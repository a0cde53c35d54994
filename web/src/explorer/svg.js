// A tiny SVG element builder: el('rect', {x: 1, y: 2}, [children]). Text goes in as text, never as markup.

const NS = 'http://www.w3.org/2000/svg';

export function el(name, attrs = {}, children = []) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

/** A <text> with its content set through textContent. */
export function label(text, attrs) {
  const node = el('text', attrs);
  node.textContent = text;
  return node;
}
