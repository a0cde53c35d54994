// Creating SVG elements, and setting attributes only when they change (each element remembers what it was given).

const NS = 'http://www.w3.org/2000/svg';

export function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  node.$ = {};
  for (const [name, value] of Object.entries(attrs)) set(node, name, value);
  if (parent) parent.appendChild(node);
  return node;
}

/** Set attribute `name` to `value` (null removes it), unless it already has that value. */
export function set(node, name, value) {
  if (node.$[name] === value) return;
  node.$[name] = value;
  if (value === null) node.removeAttribute(name);
  else node.setAttribute(name, value);
}

/** Paint `node`'s `prop` ('fill' or 'stroke') with `color`: a CSS colour goes in the attribute; "@name", a colour of
 * the palette (kernelviz/pie/palette.json), goes in the style as var(--kv-name), since an attribute cannot take
 * var(), so that the page's stylesheet (light or dark) decides it. */
export function paint(node, prop, color) {
  const named = typeof color === 'string' && color.startsWith('@');
  set(node, prop, named ? null : color);
  const css = named ? `var(--kv-${color.slice(1)})` : '';
  const key = `style ${prop}`;
  if ((node.$[key] ?? '') === css) return;
  node.$[key] = css;
  if (css) node.style.setProperty(prop, css);
  else node.style.removeProperty(prop);
}

/** Pixels, rounded to hundredths so that attributes stay short and the same state always reads the same. */
export function px(v) {
  return Math.round(v * 100) / 100;
}

/** Place <rect> `rect` on the box with corner (x, y) and sides w, h in canvas units (y up; a side may be negative),
 * at `unit` px per unit. */
export function setBox(rect, x, y, w, h, unit) {
  set(rect, 'x', px(Math.min(x, x + w) * unit));
  set(rect, 'y', px(-Math.max(y, y + h) * unit));
  set(rect, 'width', px(Math.abs(w) * unit));
  set(rect, 'height', px(Math.abs(h) * unit));
}
