// Creating SVG elements, the one helper of the web code (the figure's renderer and the explorer draw with it), and
// setting attributes only when they change (each element remembers what it was given).
// While `adopting` runs, `el` takes over the elements already in the page (an SVG drawn at build time by the same
// code, see web/src/build-time/render-figure.js) instead of making new ones: the next child of `parent` with the
// tag asked for, which the build made in the same order. An adopted element remembers the attributes it has, so
// drawing the same state again changes nothing in the page.

const NS = 'http://www.w3.org/2000/svg';
let adopted = null; // while adopting: the elements taken over so far

export function el(tag, attrs = {}, parent = null, before = undefined) {
  const found = adopted && parent ? [...parent.children].find((c) => c.localName === tag && !adopted.has(c)) : null;
  const node = found || document.createElementNS(NS, tag);
  node.$ = found ? remembered(found) : {};
  adopted?.add(node);
  for (const [name, value] of Object.entries(attrs)) set(node, name, value);
  if (parent && !found) before === undefined ? parent.appendChild(node) : parent.insertBefore(node, before);
  return node;
}

/** A <text> saying `text` (as text, never markup), with `attrs`. */
export function label(text, attrs = {}) {
  const node = el('text', attrs);
  node.textContent = text;
  return node;
}

/** What an element in the page was given: its attributes, and the fill and stroke of its style. */
function remembered(node) {
  const given = {};
  for (const a of node.attributes) if (a.name !== 'style') given[a.name] = a.value;
  for (const prop of ['fill', 'stroke']) given[`style ${prop}`] = node.style.getPropertyValue(prop);
  return given;
}

/** Run `draw()` taking over the elements of `root` (an SVG drawn at build time) as `el` asks for them; what `draw`
 * did not ask for is removed. Returns what `draw` returns. */
export function adopting(root, draw) {
  adopted = new Set();
  try {
    return draw();
  } finally {
    const kept = adopted;
    adopted = null;
    for (const node of [...root.querySelectorAll('*')]) {
      if (!kept.has(node) && node.localName !== 'tspan' && node.isConnected) node.remove();
    }
  }
}

/** Set attribute `name` to `value` (null removes it), unless it already has that value. */
export function set(node, name, value) {
  node.$ ??= remembered(node); // an element `el` did not make (a line of a label drawn at build time)
  const had = node.$[name];
  if (had === value) return;
  node.$[name] = value;
  if (value === null) {
    if (had !== undefined) node.removeAttribute(name);
  } else if (had !== String(value)) {
    node.setAttribute(name, value);
  }
}

/** Paint `node`'s `prop` ('fill' or 'stroke') with `color`: a CSS colour goes in the attribute; "@name", a colour of
 * the palette (kernelviz/pie/palette.json), goes in the style as var(--kv-name), and so does a colour that is a
 * custom property already ("var(--kv-q)", the explorer's), since an attribute cannot take var(), so that the page's
 * stylesheet (light or dark) decides it. */
export function paint(node, prop, color) {
  const named = typeof color === 'string' && color.startsWith('@');
  const custom = typeof color === 'string' && color.startsWith('var(');
  set(node, prop, named || custom ? null : color);
  const css = named ? `var(--kv-${color.slice(1)})` : custom ? color : '';
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
