// The little of the DOM the figure's renderer (web/src/figure/render/) and its controls (the settings panel, the
// step list, the figure's tools) use, for drawing at build time in the site builder's V8, where there is no
// document: elements with attributes (and the properties that reflect them), a dataset, a style of properties,
// text and children, serialised as markup by `markup`; events are never fired. A 2D canvas context measures text
// with the advance widths of Helvetica (Arial's are the same), an approximation of the browser's sans-serif: the
// browser measures again and re-fits a label whose lines come out otherwise, without drawing anything else again.

// Ids the controls make from Math.random (forms/number-field.js) come out the same in every build.
Math.random = () => 0.5;

// Advance widths of ASCII 32..126 in thousandths of an em (Helvetica's AFM).
const WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556,
  556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584,
];
const OTHER = 556; // any other character: a digit's width

/** The width in px of `text` at `size` px, by the table above. */
export function textWidth(text, size) {
  let w = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    w += code >= 32 && code <= 126 ? WIDTHS[code - 32] : OTHER;
  }
  return (w / 1000) * size;
}

class Style {
  constructor() {
    this.props = new Map();
  }
  setProperty(name, value) {
    this.props.set(name, String(value));
  }
  removeProperty(name) {
    this.props.delete(name);
  }
  getPropertyValue(name) {
    return this.props.get(name) ?? '';
  }
  get cssText() {
    return [...this.props].map(([k, v]) => `${k}: ${v};`).join(' ');
  }
}

class Text {
  constructor(data) {
    this.data = data;
    this.parentNode = null;
  }
}

// Properties that reflect an attribute ([property, attribute]); `open` and `hidden` are present or absent.
const REFLECTED = [['id', 'id'], ['className', 'class'], ['value', 'value'], ['min', 'min'], ['max', 'max'],
  ['type', 'type'], ['name', 'name'], ['inputMode', 'inputmode'], ['title', 'title']]; // prettier-ignore
const PRESENT = ['open', 'hidden'];
const VOID = new Set(['input', 'br', 'img', 'hr', 'meta', 'link', 'wbr']); // HTML elements without an end tag

class Element {
  constructor(tag) {
    this.localName = tag;
    this.attrs = new Map();
    this.style = new Style();
    this.childNodes = [];
    this.parentNode = null;
    this.classList = {
      add: (c) => this.setAttribute('class', [...new Set([...this.classNames(), c])].join(' ')),
      remove: (c) => this.setAttribute('class', this.classNames().filter((x) => x !== c).join(' ')),
      contains: (c) => this.classNames().includes(c),
      toggle: (c, on = !this.classList.contains(c)) => (on ? this.classList.add(c) : this.classList.remove(c), on),
    };
    const dataName = (key) => `data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    this.dataset = new Proxy(
      {},
      {
        get: (_, key) => this.getAttribute(dataName(String(key))) ?? undefined,
        set: (_, key, value) => (this.setAttribute(dataName(String(key)), value), true),
        deleteProperty: (_, key) => (this.removeAttribute(dataName(String(key))), true),
      },
    );
  }
  classNames() {
    return (this.getAttribute('class') || '').split(/\s+/).filter(Boolean);
  }
  get attributes() {
    return [...this.attrs].map(([name, value]) => ({ name, value }));
  }
  setAttribute(name, value) {
    this.attrs.set(name, String(value));
  }
  getAttribute(name) {
    return this.attrs.has(name) ? this.attrs.get(name) : null;
  }
  removeAttribute(name) {
    this.attrs.delete(name);
  }
  get children() {
    return this.childNodes.filter((n) => n instanceof Element);
  }
  get firstChild() {
    return this.childNodes[0] ?? null;
  }
  appendChild(node) {
    return this.insertBefore(node, null);
  }
  insertBefore(node, before) {
    node.parentNode?.removeChild(node);
    const at = before ? this.childNodes.indexOf(before) : -1;
    if (at < 0) this.childNodes.push(node);
    else this.childNodes.splice(at, 0, node);
    node.parentNode = this;
    return node;
  }
  removeChild(node) {
    this.childNodes = this.childNodes.filter((n) => n !== node);
    node.parentNode = null;
    return node;
  }
  remove() {
    this.parentNode?.removeChild(this);
  }
  get textContent() {
    return this.childNodes.map((n) => (n instanceof Text ? n.data : n.textContent)).join('');
  }
  set textContent(value) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = [];
    if (value !== '') this.appendChild(new Text(String(value)));
  }
  append(...nodes) {
    for (const n of nodes) this.appendChild(typeof n === 'string' ? new Text(n) : n);
  }
  replaceChildren(...nodes) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = [];
    this.append(...nodes);
  }
  prepend(...nodes) {
    const first = this.firstChild;
    for (const n of nodes) this.insertBefore(typeof n === 'string' ? new Text(n) : n, first);
  }
  /** The first descendant whose tag is `selector` (a tag name is all the controls ask for). */
  querySelector(selector) {
    for (const child of this.children) {
      if (child.localName === selector) return child;
      const found = child.querySelector(selector);
      if (found) return found;
    }
    return null;
  }
  addEventListener() {} // nothing happens at build time
}
for (const [property, attribute] of REFLECTED) {
  Object.defineProperty(Element.prototype, property, {
    get() {
      return this.getAttribute(attribute) ?? '';
    },
    set(value) {
      this.setAttribute(attribute, value);
    },
  });
}
for (const property of PRESENT) {
  Object.defineProperty(Element.prototype, property, {
    get() {
      return this.attrs.has(property);
    },
    set(value) {
      if (value) this.setAttribute(property, '');
      else this.removeAttribute(property);
    },
  });
}

const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s) => escapeText(s).replace(/"/g, '&quot;');

/** `node` as HTML markup (SVG elements inline in HTML: every element closed explicitly, but HTML's void ones). */
export function markup(node) {
  if (node instanceof Text) return escapeText(node.data);
  const attrs = [...node.attrs].map(([k, v]) => ` ${k}="${escapeAttr(v)}"`);
  const css = node.style.cssText;
  if (css) attrs.push(` style="${escapeAttr(css)}"`);
  const open = `<${node.localName}${attrs.join('')}>`;
  return VOID.has(node.localName) ? open : `${open}${node.childNodes.map(markup).join('')}</${node.localName}>`;
}

/** A context whose measureText uses `textWidth`, in the px size of its `font` ("12px family"). */
function measuringContext() {
  return {
    font: '10px sans-serif',
    measureText(text) {
      return { width: textWidth(text, parseFloat(this.font)) };
    },
  };
}

/** A document for the renderer: createElementNS makes an Element; a canvas element gives a measuring context. */
export const documentShim = {
  createElementNS: (ns, tag) => new Element(tag),
  createElement: (tag) => (tag === 'canvas' ? { getContext: () => measuringContext() } : new Element(tag)),
};

/** A bare element to draw into (the figure's canvas box). */
export function container() {
  return new Element('div');
}
