// The live metrics: the N×N score memory, tile interactions, HBM traffic (the explorer's pair of records, topics.js:
// the baseline and the explored algorithm, each bar named by its record; the compulsory minimum) beside
// the HBM memory each allocates (one ratio stays flat as N grows, the other grows), the block's shared memory and
// registers, and the standard-versus-online softmax check. Each value also sits, exact, in the
// element's data-value (bytes, counts), so tests compare numbers, not formatted text.

import { REGISTER_FILE_BYTES } from './budgets.js';
import { h, setText } from './dom.js';
import { bytes, count, ratio, seqLength, tiny } from './format.js';
import { explorerPair } from './topics.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function metric(id, title) {
  const heading = h('h3');
  setText(heading, title);
  const big = h('p', { class: 'kvx-big' });
  const note = h('p', { class: 'kvx-note' });
  const element = h('div', { class: 'kvx-metric', 'data-metric': id }, [heading, big, note]);
  return { element, big, note };
}

function barRow(id, name, prefix = 'hbm') {
  const title = h('span', { class: 'kvx-bar-name' });
  setText(title, name);
  const fill = h('span', { class: `kvx-bar-fill kvx-bar-${id}` });
  const value = h('span', { class: 'kvx-bar-value' });
  const element = h('div', { class: 'kvx-bar', 'data-metric': `${prefix}_${id}` }, [
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

/** Set each bar of `bars` to its value in `values`, as a share of the largest. */
function fill(bars, values) {
  const most = Math.max(...Object.keys(bars).map((id) => values[id]));
  for (const [id, b] of Object.entries(bars)) {
    b.element.dataset.value = String(values[id]);
    b.fill.style.width = `${Math.max((100 * values[id]) / most, 0.4)}%`;
    setText(b.value, bytes(values[id]));
  }
}

export function buildMetrics(cases) {
  const scores = metric('score_bytes', 'Scores, N × N');
  const tiles = metric('tile_interactions', 'Query-key tile interactions');
  const shared = metric('shared_block', 'Shared memory one block holds');
  const registers = metric('registers_block', 'Registers one block holds');

  const hbmHeading = h('h3');
  setText(hbmHeading, 'HBM, one head: traffic and memory');
  const traffic = h('p', { class: 'kvx-sub' });
  setText(traffic, 'bytes moved');
  const { explored, baseline } = explorerPair(); // each bar's id its record's name; its label the name or title
  const bars = { [baseline.name]: barRow(baseline.name, baseline.name) };
  bars[explored.name] = barRow(explored.name, explored.title);
  bars.compulsory = barRow('compulsory', 'compulsory minimum');
  const hbmNote = h('p', { class: 'kvx-note', 'data-metric': 'hbm_ratio' });
  const held = h('p', { class: 'kvx-sub' });
  setText(held, 'bytes allocated');
  const memBars = {
    [baseline.name]: barRow(baseline.name, baseline.name, 'memory'),
    [explored.name]: barRow(explored.name, explored.title, 'memory'),
  };
  const memNote = h('p', { class: 'kvx-note', 'data-metric': 'memory_ratio' });
  const hbm = h('div', { class: 'kvx-metric kvx-hbm', 'data-metric': 'hbm' }, [
    hbmHeading,
    h('div', { class: 'kvx-hbm-pair' }, [
      h('div', { class: 'kvx-hbm-part' }, [traffic, ...Object.values(bars).map((b) => b.element), hbmNote]),
      h('div', { class: 'kvx-hbm-part' }, [held, ...Object.values(memBars).map((b) => b.element), memNote]),
    ]),
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
    shared.element,
    registers.element,
    hbm,
    softmax,
  ]);

  /** m: {scoreBytes, tileInteractions, allTiles, Tr, Tc, moved: {baseline's name, explored's name, compulsory},
   * limit, footprint: {baseline's name, explored's name}, shared, registers (sram_fit of each), budget} */
  function update(m, state) {
    const [base, flash] = [baseline.name, explored.name];
    scores.element.dataset.value = String(m.scoreBytes);
    setText(scores.big, bytes(m.scoreBytes));
    setText(scores.note, `per head in ${state.dtype}; ${baseline.title} writes S and P this size and reads both back`);

    tiles.element.dataset.value = String(m.tileInteractions);
    setText(tiles.big, count(m.tileInteractions));
    const grid = `Tr × Tc = ${count(m.Tr)} × ${count(m.Tc)}`;
    const skipped = m.allTiles - m.tileInteractions;
    setText(tiles.note, state.causal ? `${grid}; causal masking skips ${count(skipped)} above the diagonal` : grid);

    fill(bars, m.moved);
    const moved = m.moved[base] / m.moved[flash];
    hbmNote.dataset.value = String(moved);
    setText(
      hbmNote,
      `${explored.title} moves ${ratio(moved)} less than ${baseline.title}, ` +
        `${ratio(m.moved[flash] / m.moved.compulsory)} the minimum (K and V are read once per block of ` +
        `${state.Br} query rows). As N grows this ratio tends to ${ratio(m.limit)}: a constant factor.`,
    );
    fill(memBars, m.footprint);
    const kept = m.footprint[base] / m.footprint[flash];
    memNote.dataset.value = String(kept);
    setText(
      memNote,
      `${capital(baseline.title)} allocates ${ratio(kept)} the memory of ${explored.title}: its S and P are ` +
        `N × N each, while Q, K, V, O are N × d and L holds N numbers. This ratio grows with N.`,
    );

    shared.element.dataset.value = String(m.shared.total);
    shared.element.dataset.fits = String(m.shared.fits);
    setText(shared.big, `${bytes(m.shared.total)} of ${bytes(m.budget)}`);
    const tiles16 = `Qi, Kj, Vj in ${state.dtype}`;
    const over = `over budget: ${m.shared.over.join(', ')} do not fit`;
    setText(shared.note, m.shared.fits ? `${tiles16}; fits the budget` : over);
    shared.element.classList.toggle('is-over', !m.shared.fits);

    registers.element.dataset.value = String(m.registers.total);
    registers.element.dataset.fits = String(m.registers.fits);
    setText(registers.big, `${bytes(m.registers.total)} or more`);
    const spread = 'Sij, Oi, mi, li in float32, spread over the warps that own their rows';
    const file = bytes(REGISTER_FILE_BYTES);
    setText(
      registers.note,
      m.registers.fits ? `${spread}; a block may have ${file}` : `${spread}: more than the ${file} a block may have`,
    );
    registers.element.classList.toggle('is-over', !m.registers.fits);
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
