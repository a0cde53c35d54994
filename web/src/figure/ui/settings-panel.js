// The canvas settings, above the figure and editable live, each under a name a reader knows and with its unit:
// scale (px per canvas unit), grid opacity, background colour, and where the origin sits (px right of and above
// the canvas centre). They fold under a "Canvas" summary, folded at first on every screen (open, they push the step
// list below the fold of a 1366×768 laptop, and a docked figure on a phone needs the room); a reader who opens them
// finds them open on the next page and the next visit, until they fold them again (localStorage, OPEN_KEY). The
// inputs keep the Scene's setting names (name="unit", ...). A typed value out of range is refused with the range
// stated beside it (forms/number-field.js). `change(name, value)` applies one; `show(settings)` refreshes.
import { numberField } from '../../forms/number-field.js';
import { h } from '../../lib/dom.js';

/** [setting, label, input attributes, range for a typed number {min, max, unit}]. */
const FIELDS = [
  ['unit', 'Scale', { type: 'number', step: 'any' }, { min: 1, max: 400, unit: 'px per unit' }],
  ['gridOpacity', 'Grid opacity', { type: 'range', min: 0, max: 1, step: 0.05 }, null],
  ['canvasColor', 'Background', { type: 'color' }, null],
  ['originX', 'Origin x', { type: 'number', step: 10 }, { min: -2000, max: 2000, unit: 'px right' }],
  ['originY', 'Origin y', { type: 'number', step: 10 }, { min: -2000, max: 2000, unit: 'px up' }],
];

export const OPEN_KEY = 'kv-canvas-settings'; // "open" once the reader opened them, "folded" once they folded them

/** Whether the reader left the settings open (never at build time, where there is no storage). */
function remembered() {
  try {
    return globalThis.localStorage?.getItem(OPEN_KEY) === 'open';
  } catch {
    return false; // storage refused (private mode)
  }
}

function remember(open) {
  try {
    globalThis.localStorage?.setItem(OPEN_KEY, open ? 'open' : 'folded');
  } catch {
    // storage refused: the choice lasts for this page
  }
}

let probe = null;

/** `color` as #rrggbb, which <input type=color> needs (null when it has no such form, e.g. a translucent color). The
 * page's own styles resolve it, so a palette name ("@paper", drawn as var(--kv-paper)) or a light-dark() value
 * gives the colour the canvas shows now, in the current theme. */
function asHex(color) {
  if (!probe) {
    probe = document.createElement('span');
    probe.hidden = true;
    document.body.append(probe);
  }
  probe.style.color = '';
  probe.style.color = color.startsWith('@') ? `var(--kv-${color.slice(1)})` : color;
  if (!probe.style.color) return null;
  const rgb = getComputedStyle(probe).color.match(/^rgb\((\d+), (\d+), (\d+)\)$/);
  return rgb ? `#${rgb.slice(1).map((c) => Number(c).toString(16).padStart(2, '0')).join('')}` : null;
}

export class SettingsPanel {
  /** The panel, first in `parent` (above the canvas), or in the place of the one drawn at build time. */
  constructor(parent, change) {
    this.inputs = {};
    this.fields = {};
    const rows = FIELDS.map(([name, text, attrs, range]) => {
      const input = h('input', { ...attrs, name, class: 'kv-setting' });
      this.inputs[name] = input;
      const extra = [];
      if (range) {
        this.fields[name] = numberField(input, { ...range, apply: (v) => change(name, v) });
        extra.push(this.fields[name].hint);
      } else {
        input.addEventListener('input', () => change(name, name === 'canvasColor' ? input.value : Number(input.value)));
      }
      return h('label', {}, h('span', { class: 'kv-setting-name' }, text), input, ...extra);
    });
    const open = remembered();
    this.root = h(
      'details',
      { class: 'kv-settings', open },
      h('summary', {}, 'Canvas'),
      h('div', { class: 'kv-settings-fields', role: 'group', 'aria-label': 'Canvas settings' }, ...rows),
    );
    this.root.addEventListener('toggle', () => remember(this.root.open));
    const drawn = parent.querySelector(':scope > .kv-settings[data-prerendered]');
    if (drawn) drawn.replaceWith(this.root);
    else parent.prepend(this.root);
  }

  show(settings) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (this.fields[name]) this.fields[name].show(settings[name]);
      else if (document.activeElement !== input) {
        input.value = name === 'canvasColor' ? asHex(settings[name]) || '#ffffff' : settings[name];
      }
    }
  }

  remove() {
    this.root.remove();
  }
}
