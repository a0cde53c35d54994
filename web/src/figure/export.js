// The figure as a file: its <svg> as drawn now (the current step), made standalone, and that SVG drawn as a PNG.
//
// standaloneSvg(svg) -> {text, width, height}: a copy of `svg` with its xmlns, its viewBox, a width and height (its
// size on the page, in whole px) and every property the page's stylesheets give its elements (colours from the
// palette's var(--kv-...), which light-dark() makes the light or the dark ones: the export shows the theme the page
// shows; stroke widths, fonts, text anchors, ...) written into each element's style as the browser computed it, so
// that the file looks the same opened on its own. An inherited property is written only where it differs from the
// parent's; the page's own style attributes (var(...)) are replaced. A non-scaling stroke (vector-effect) is written
// as its width in user px at the page's zoom, so that the file scales as one picture (the PNG at 2x). The grid
// pattern and the background rect (the canvas's paper) are in it, as in the page.
// pngBlob(standalone, scale = 2) -> Promise<Blob>: that SVG drawn on a canvas at `scale` device px per px.
// download(blob, name): save `blob` as `name` (an <a download> with an object URL).
// fileName(step, ext): "flash-attention-2-step-5.svg", after the page's file name.

const NS = 'http://www.w3.org/2000/svg';
const INHERITED = [
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-linecap',
  'stroke-linejoin',
  'paint-order',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'visibility',
];
// not inherited: written when not their initial value (vector-effect never: see scaledStroke)
const OWN = { opacity: '1', display: null };

/** `svg` as a standalone SVG document: {text, width, height}. */
export function standaloneSvg(svg) {
  const box = svg.getBoundingClientRect();
  const width = Math.max(1, Math.round(box.width));
  const height = Math.max(1, Math.round(box.height));
  const copy = svg.cloneNode(true);
  const view = svg.viewBox.baseVal;
  const zoom = view && view.width > 0 && view.height > 0 ? Math.min(width / view.width, height / view.height) : 1;
  resolveStyles(svg, copy, null, zoom);
  copy.setAttribute('xmlns', NS);
  copy.setAttribute('width', width);
  copy.setAttribute('height', height);
  if (!copy.getAttribute('viewBox')) copy.setAttribute('viewBox', `0 0 ${width} ${height}`);
  // the viewBox fills the whole px size: rounding it would otherwise leave a hairline of no background at an edge
  copy.setAttribute('preserveAspectRatio', 'none');
  for (const name of ['class', 'role', 'tabindex', 'data-prerendered']) copy.removeAttribute(name);
  copy.style.removeProperty('position');
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
  return { text, width, height };
}

/** Write the computed style of `node` (in the page) into `copy`, its clone, and so on down the tree; `zoom`: screen
 * px per user px. */
function resolveStyles(node, copy, parentStyle, zoom) {
  const style = getComputedStyle(node);
  const written = [];
  const fixed = style.getPropertyValue('vector-effect') === 'non-scaling-stroke';
  for (const prop of INHERITED) {
    const value = style.getPropertyValue(prop);
    if (fixed && prop === 'stroke-width') written.push(`${prop}: ${scaledStroke(value, zoom)}`);
    else if (value && (!parentStyle || parentStyle.getPropertyValue(prop) !== value)) written.push(`${prop}: ${value}`);
  }
  for (const [prop, initial] of Object.entries(OWN)) {
    const value = style.getPropertyValue(prop);
    if (prop === 'display' ? value === 'none' : value && value !== initial) written.push(`${prop}: ${value}`);
  }
  copy.removeAttribute('style');
  if (written.length) copy.setAttribute('style', written.join('; '));
  copy.removeAttribute('tabindex');
  const kids = node.children;
  const copies = copy.children;
  for (let i = 0; i < kids.length; i++) resolveStyles(kids[i], copies[i], style, zoom);
}

/** A non-scaling stroke of `value` screen px, as user px at `zoom`: the file draws it as the page does, at any size
 * it is drawn at (a PNG at 2x scales it with the rest, as a screen at 2 device px per px would). */
function scaledStroke(value, zoom) {
  const px = parseFloat(value);
  return Number.isFinite(px) ? `${Math.round((px / zoom) * 1000) / 1000}px` : value;
}

/** A PNG of `standalone` ({text, width, height}) at `scale` device px per px. */
export async function pngBlob(standalone, scale = 2) {
  const url = URL.createObjectURL(new Blob([standalone.text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.decoding = 'sync';
    await new Promise((resolve, reject) => {
      image.onload = resolve;
      image.onerror = () => reject(new Error('the SVG could not be read as an image'));
      image.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = standalone.width * scale;
    canvas.height = standalone.height * scale;
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas made no PNG'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Save `blob` as a file named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // long enough for the browser to have read it
}

/** "<page>-step-<k>.<ext>", the page from its file name ("flash-attention-2"), "figure" when it has none. */
export function fileName(step, ext) {
  const page = decodeURIComponent(location.pathname.split('/').pop() || '').replace(/\.html?$/, '') || 'figure';
  return `${page.replace(/[^\w.-]+/g, '-')}-step-${step}.${ext}`;
}
