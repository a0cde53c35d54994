// The live metrics: the N×N score memory, tile interactions, HBM bytes (standard, FA2, compulsory minimum),
// the block's SRAM, and the standard-versus-online softmax check. Each value also sits, exact, in the
// element's data-value (bytes, counts), so tests compare numbers, not formatted text.

import { h, setText } from './dom.js';
import { bytes, count, ratio, seqLength, tiny } from './format.js';

function metric(id, title) {
  const heading = h('h3');
  setText(heading, title);
  const big = h('p', { class: 'kvx-big' });
  const note = h('p', { class: 'kvx-note' });
  const element = h('div', { class: 'kvx-metric', 'data-metric': id }, [heading, big, note]);
  return { element, big, note };
}

function barRow(id, name) {
  const title = h('span', { class: 'kvx-bar-name' });
  setText(title, name);
  const fill = h('span', { class: `kvx-bar-fill kvx-bar-${id}` });
  const value = h('span', { class: 'kvx-bar-value' });
  const element = h('div', { class: 'kvx-bar', 'data-metric': `hbm_${id}` }, [
    title,
    h('span', { class: 'kvx-bar-track' }, [fill]),
    value,
  ]);
  return { element, fill, value };
}

function softmaxRow(c) {
  const cells = ['label', 'dp', 'do', 'naive'].map((k) => h(k === 'label' ? 'th' : 'td', { class: `kvx-sm-${k}` }));
  cells[0].setAttribute('scope', 'row');
  setText(cells[0], c.label);
  return { element: h('tr', { 'data-metric': `softmax_${c.id}` }, cells), cells };
}

export function buildMetrics(cases) {
  const scores = metric('score_bytes', 'Scores, N × N');
  const tiles = metric('tile_interactions', 'Query-key tile interactions');
  const sram = metric('sram_block', 'SRAM one block holds');

  const hbmHeading = h('h3');
  setText(hbmHeading, 'HBM traffic, one head');
  const bars = { standard: barRow('standard', 'standard'), fa2: barRow('fa2', 'Flash Attention 2') };
  bars.compulsory = barRow('compulsory', 'compulsory minimum');
  const hbmNote = h('p', { class: 'kvx-note' });
  const hbm = h('div', { class: 'kvx-metric kvx-hbm', 'data-metric': 'hbm' }, [
    hbmHeading,
    ...Object.values(bars).map((b) => b.element),
    hbmNote,
  ]);

  const smHeading = h('h3');
  setText(smHeading, 'Standard vs online softmax, float32');
  const head = h('tr', {}, ['row of N logits', 'max |Δp|', '|Δo|', 'exp without max'].map((t) => {
    const th = h('th', { scope: 'col' });
    setText(th, t);
    return th;
  }));
  const rows = cases.map(softmaxRow);
  const body = h('tbody', {}, rows.map((r) => r.element));
  const table = h('table', { class: 'kvx-sm-table' }, [h('thead', {}, [head]), body]);
  const smNote = h('p', { class: 'kvx-note' });
  const softmax = h('div', { class: 'kvx-metric kvx-softmax', 'data-metric': 'softmax', 'aria-live': 'polite' }, [
    smHeading,
    table,
    smNote,
  ]);

  const element = h('section', { class: 'kvx-metrics', 'aria-label': 'Live metrics' }, [
    scores.element,
    tiles.element,
    hbm,
    sram.element,
    softmax,
  ]);

  /** m: {scoreBytes, tileInteractions, allTiles, Tr, Tc, standard, fa2, compulsory, sram, budget, dtype} */
  function update(m, state) {
    scores.element.dataset.value = String(m.scoreBytes);
    setText(scores.big, bytes(m.scoreBytes));
    setText(scores.note, `per head in ${state.dtype}; standard attention writes S and P this size and reads both back`);

    tiles.element.dataset.value = String(m.tileInteractions);
    setText(tiles.big, count(m.tileInteractions));
    const grid = `Tr × Tc = ${count(m.Tr)} × ${count(m.Tc)}`;
    const skipped = m.allTiles - m.tileInteractions;
    setText(tiles.note, state.causal ? `${grid}; causal masking skips ${count(skipped)} above the diagonal` : grid);

    const most = Math.max(m.standard, m.fa2, m.compulsory);
    for (const [id, b] of Object.entries(bars)) {
      b.element.dataset.value = String(m[id]);
      b.fill.style.width = `${Math.max((100 * m[id]) / most, 0.4)}%`;
      setText(b.value, bytes(m[id]));
    }
    setText(
      hbmNote,
      `Flash Attention 2 moves ${ratio(m.standard / m.fa2)} less than standard attention, ` +
        `${ratio(m.fa2 / m.compulsory)} the minimum (K and V are read once per block of ${state.Br} query rows).`,
    );

    sram.element.dataset.value = String(m.sram.total);
    sram.element.dataset.fits = String(m.sram.fits);
    setText(sram.big, `${bytes(m.sram.total)} of ${bytes(m.budget)}`);
    setText(sram.note, m.sram.fits ? 'fits the budget' : `over budget: ${m.sram.over.join(', ')} do not fit`);
    sram.element.classList.toggle('is-over', !m.sram.fits);
  }

  function pending() {
    softmax.setAttribute('aria-busy', 'true');
  }

  /** results: softmaxCheck's array; n, block: what it ran on. */
  function updateSoftmax(results, n, block) {
    results.forEach((r, k) => {
      const { element: row, cells } = rows[k];
      row.dataset.dp = String(r.dp);
      row.dataset.do = String(r.do);
      setText(cells[1], tiny(r.dp));
      setText(cells[2], tiny(r.do));
      setText(cells[3], r.naiveFinite ? 'finite' : 'overflows (inf/NaN)');
    });
    const how = `N = ${seqLength(n)} random logits, online in blocks of Bc = ${block}`;
    setText(smNote, `${how}; seeded, so the same every time.`);
    softmax.dataset.n = String(n);
    softmax.dataset.block = String(block);
    softmax.removeAttribute('aria-busy');
  }

  return { element, update, pending, updateSoftmax };
}
