// Markup as text, for the roofline's drawing: the same strings are written into the page at build time (in the
// builder's V8, which has no DOM) and set as innerHTML in the browser, so one drawing code serves both.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe inside an element or a quoted attribute. */
export const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const VOID = new Set(['input', 'br', 'img', 'hr', 'wbr']); // HTML elements without an end tag

/** <tag attrs>children</tag>, children strings or arrays of them at any depth (an HTML void element: <tag attrs>);
 * attributes whose value is null or false are left out, true is written bare. */
export function el(tag, attrs = {}, ...children) {
  const written = Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${escape(v)}"`))
    .join('');
  if (VOID.has(tag)) return `<${tag}${written}>`;
  return `<${tag}${written}>${children.flat(Infinity).join('')}</${tag}>`;
}
