// The settings form: N (log slider and exact number), d, Br, Bc, dtype, shared memory budget (preset or custom),
// causal.
// Every change calls onChange with the fields it sets; `update(state)` shows a state without firing events.

import { CUSTOM_MAX_KIB, CUSTOM_MIN_KIB, PRESETS } from './budgets.js';
import { numberField } from '../forms/number-field.js';
import { h, options, setText } from './dom.js';
import { seqLength } from './format.js';
import { BLOCK_SIZES, DTYPES, HEAD_DIMS, N_MAX, N_MIN, N_STOPS, nFromStop, stopFromN } from './state.js';

function field(text, control, extra = []) {
  const lab = h('label', { for: control.id });
  setText(lab, text);
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
    'aria-label': 'Custom shared memory budget in KiB',
  });
  const causal = h('input', { type: 'checkbox', id: 'kvx-causal' });
  const nField = numberField(nNumber, { min: N_MIN, max: N_MAX, whole: true, apply: (N) => onChange({ N }) });
  const kibField = numberField(kib, {
    min: CUSTOM_MIN_KIB,
    max: CUSTOM_MAX_KIB,
    whole: true,
    unit: 'KiB',
    apply: (v) => onChange({ sram: v }),
  });

  const causalLabel = h('label', { for: 'kvx-causal' });
  setText(causalLabel, 'causal');
  const element = h('form', { class: 'kvx-controls', 'aria-label': 'Explorer settings' }, [
    field('Sequence length N', nRange, [nShown, nNumber, nField.hint]),
    field('Head dim d', d),
    field('Br (query rows)', Br),
    field('Bc (keys)', Bc),
    field('dtype', dtype),
    field('Shared memory', sram, [kib, kibField.hint]),
    h('div', { class: 'kvx-field kvx-check' }, [causal, causalLabel]),
  ]);
  element.addEventListener('submit', (e) => e.preventDefault());

  nRange.addEventListener('input', () => onChange({ N: nFromStop(Number(nRange.value)) }));
  for (const [key, sel] of [['d', d], ['Br', Br], ['Bc', Bc]]) {
    sel.addEventListener('change', () => onChange({ [key]: Number(sel.value) }));
  }
  dtype.addEventListener('change', () => onChange({ dtype: dtype.value }));
  let customKiB = Math.round(PRESETS.a100.bytes / 1024); // the custom budget last applied
  sram.addEventListener('change', () => {
    if (sram.value !== 'custom') return onChange({ sram: sram.value });
    onChange({ sram: customKiB });
    kib.focus();
  });
  causal.addEventListener('change', () => onChange({ causal: causal.checked }));

  function update(state) {
    nRange.value = String(stopFromN(state.N));
    nRange.setAttribute('aria-valuetext', `N = ${state.N}`);
    setText(nShown, seqLength(state.N));
    nField.show(state.N);
    d.value = String(state.d);
    Br.value = String(state.Br);
    Bc.value = String(state.Bc);
    dtype.value = state.dtype;
    const custom = typeof state.sram === 'number';
    sram.value = custom ? 'custom' : state.sram;
    kib.hidden = kibField.hint.hidden = !custom;
    if (custom) {
      customKiB = state.sram;
      kibField.show(state.sram);
    }
    causal.checked = state.causal;
  }

  return { element, update };
}
