// The canvas settings, editable live: unit (px per canvas unit), grid opacity, canvas color, and where the origin
// sits (px right of and above the canvas centre). `change(name, value)` applies one; `show(settings)` refreshes.
import { h } from './dom.js';

const FIELDS = [
  ['unit', { type: 'number', min: 1, max: 400, step: 1 }],
  ['gridOpacity', { type: 'range', min: 0, max: 1, step: 0.05 }],
  ['canvasColor', { type: 'color' }],
  ['originX', { type: 'number', step: 10 }],
  ['originY', { type: 'number', step: 10 }],
];

let probe = null;

/** `color` as #rrggbb, which <input type=color> needs (null when it has no such form, e.g. a translucent color). */
function asHex(color) {
  probe ||= document.createElement('canvas').getContext('2d');
  if (!probe) return null;
  probe.fillStyle = '#000000';
  probe.fillStyle = color;
  return /^#[0-9a-f]{6}$/i.test(probe.fillStyle) ? probe.fillStyle : null;
}

export class SettingsPanel {
  constructor(parent, change) {
    this.inputs = {};
    const rows = FIELDS.map(([name, attrs]) => {
      const input = h('input', { ...attrs, name, class: 'kv-setting' });
      input.addEventListener('input', () => {
        if (name === 'canvasColor') change(name, input.value);
        else if (input.value !== '' && Number.isFinite(Number(input.value))) change(name, Number(input.value));
      });
      this.inputs[name] = input;
      return h('label', {}, h('span', {}, name), input);
    });
    this.root = h('details', { class: 'kv-settings' }, h('summary', {}, 'Canvas settings'), h('div', { class: 'kv-settings-grid' }, ...rows));
    parent.append(this.root);
  }

  show(settings) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (document.activeElement === input) continue;
      input.value = name === 'canvasColor' ? asHex(settings[name]) || '#ffffff' : settings[name];
    }
  }

  remove() {
    this.root.remove();
  }
}
