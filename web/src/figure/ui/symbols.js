// Math ↔ figure: a symbol of the page's math that stands for a slot of the figure (tagged at build time,
// data-kv-slot="mi" on the MathML of m_i: kernelviz/site/extensions/math_symbols.py) marks that slot in the figure while the
// pointer is on it (a tap: until the next tap), and pointing at a slot in the figure (ui/hover.js) lights up every
// symbol for it in the text (class kv-sym-on). The symbols are not focusable: their words are in the prose, and the
// keyboard reaches the same slots in the figure itself.
//
//   wireSymbols(root, hover): `root` holds the text's math; `hover`, the figure's Hover.

export function wireSymbols(root, hover) {
  const symbols = () => root.querySelectorAll('[data-kv-slot]');
  const on = (el) => el?.closest?.('[data-kv-slot]');
  let tapped = null;
  root.addEventListener('pointerover', (e) => {
    const el = on(e.target);
    if (el && e.pointerType === 'mouse') hover.highlight(el.dataset.kvSlot);
  });
  root.addEventListener('pointerout', (e) => {
    const el = on(e.target);
    if (el && e.pointerType === 'mouse' && !el.contains(e.relatedTarget)) hover.highlight(tapped);
  });
  root.addEventListener('click', (e) => {
    const el = on(e.target);
    tapped = el ? el.dataset.kvSlot : null;
    hover.highlight(tapped);
  });
  hover.onSlot((name) => {
    const base = name ? name.split(' ')[0] : null; // a cell of Sij lights up S_ij
    for (const el of symbols()) el.classList.toggle('kv-sym-on', el.dataset.kvSlot === name || el.dataset.kvSlot === base);
  });
}
