// The settings form: N (log slider and exact number), d, Br, Bc, dtype, SRAM budget (preset or custom), causal.
// Every change calls onChange with the fields it sets; `update(state)` shows a state without firing events.

import { CUSTOM_MAX_KIB, CUSTOM_MIN_KIB, PRESETS } from './budgets.js';
import { h, options } from './dom.js';
import { seqLength } from './format.js';
import { BLOCK_SIZES, DTYPES, HEAD_DIMS, N_MAX, N_MIN, N_STOPS, nFromStop, stopFromN } from './state.js';

function field(text, control, extra = []) {
  const lab = h('label', { for: control.id });
  lab.textContent = text;
  return h('div', { class: 'kvx-field' }, [lab, control, ...extra]);
}

export function buildControls(onChange) {
  const nRange = h('input', { type: 'range', id: 'kvx-n-range', min: 0, max: N_STOPS, step: 1 });
  const nNumber = h('input', {
    type: 'number',
    id: 'kvx-n',
    min: N_MIN,
    max: N_MAX,
    step: 1,
    inputmode: 'numeric',
    'aria-label': 'Sequence length N, exact',
  });
  const nShown = h('output', { for: 'kvx-n-range', class: 'kvx-n-shown' });
  const d = h('select', { id: 'kvx-d' }, options(HEAD_DIMS.map((v) => [v, v])));
  const Br = h('select', { id: 'kvx-br' }, options(BLOCK_SIZES.map((v) => [v, v])));
  const Bc = h('select', { id: 'kvx-bc' }, options(BLOCK_SIZES.map((v) => [v, v])));
  const dtype = h('select', { id: 'kvx-dtype' }, options(Object.keys(DTYPES).map((v) => [v, v])));
  const presets = Object.entries(PRESETS).map(([k, p]) => [k, p.label]);
  const sram = h('select', { id: 'kvx-sram' }, options([...presets, ['custom', 'Custom (KiB)']]));
  const kib = h('input', {
    type: 'number',
    id: 'kvx-sram-kib',
    min: CUSTOM_MIN_KIB,
    max: CUSTOM_MAX_KIB,
    step: 1,
    inputmode: 'numeric',
    'aria-label': 'Custom SRAM budget in KiB',
  });
  const causal = h('input', { type: 'checkbox', id: 'kvx-causal' });

  const causalLabel = h('label', { for: 'kvx-causal' });
  causalLabel.textContent = 'causal';
  const element = h('form', { class: 'kvx-controls', 'aria-label': 'Explorer settings' }, [
    field('Sequence length N', nRange, [nShown, nNumber]),
    field('Head dim d', d),
    field('Br (query rows)', Br),
    field('Bc (keys)', Bc),
    field('dtype', dtype),
    field('SRAM budget', sram, [kib]),
    h('div', { class: 'kvx-field kvx-check' }, [causal, causalLabel]),
  ]);
  element.addEventListener('submit', (e) => e.preventDefault());

  const whole = (input, lo, hi) => {
    const v = Number(input.value);
    return Number.isInteger(v) && v >= lo && v <= hi ? v : null;
  };
  nRange.addEventListener('input', () => onChange({ N: nFromStop(Number(nRange.value)) }));
  nNumber.addEventListener('input', () => {
    const v = whole(nNumber, N_MIN, N_MAX);
    nNumber.setAttribute('aria-invalid', v === null ? 'true' : 'false');
    if (v !== null) onChange({ N: v });
  });
  for (const [key, sel] of [['d', d], ['Br', Br], ['Bc', Bc]]) {
    sel.addEventListener('change', () => onChange({ [key]: Number(sel.value) }));
  }
  dtype.addEventListener('change', () => onChange({ dtype: dtype.value }));
  sram.addEventListener('change', () => {
    if (sram.value !== 'custom') return onChange({ sram: sram.value });
    const v = whole(kib, CUSTOM_MIN_KIB, CUSTOM_MAX_KIB) ?? Math.round(PRESETS.a100.bytes / 1024);
    onChange({ sram: v });
    kib.focus();
  });
  kib.addEventListener('input', () => {
    const v = whole(kib, CUSTOM_MIN_KIB, CUSTOM_MAX_KIB);
    kib.setAttribute('aria-invalid', v === null ? 'true' : 'false');
    if (v !== null) onChange({ sram: v });
  });
  causal.addEventListener('change', () => onChange({ causal: causal.checked }));

  function update(state) {
    nRange.value = String(stopFromN(state.N));
    nRange.setAttribute('aria-valuetext', `N = ${state.N}`);
    nShown.textContent = seqLength(state.N);
    if (document.activeElement !== nNumber) nNumber.value = String(state.N);
    d.value = String(state.d);
    Br.value = String(state.Br);
    Bc.value = String(state.Bc);
    dtype.value = state.dtype;
    const custom = typeof state.sram === 'number';
    sram.value = custom ? 'custom' : state.sram;
    kib.hidden = !custom;
    if (custom && document.activeElement !== kib) kib.value = String(state.sram);
    causal.checked = state.causal;
  }

  return { element, update };
}
