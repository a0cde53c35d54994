// The figure's keys. Anywhere on the page but in a text field, an editor or a region that scrolls sideways (a wide
// table's, focused: its arrows scroll it): ← previous step, → next. On the player
// only (focus in the figure, e.g. after the skip link): Home the first step, End the last, Space play / pause; on
// the rest of the page those keys scroll, as they do on any page. Space on a button or link of the figure keeps its
// usual meaning, except on the step list's own buttons (the fold button, ui/fold.js, at the end of its row, keeps it).

/** Whether `el` (the focused element) scrolls sideways: a table's or a formula's scroll region, whose ← → are its. */
function scrollsSideways(el) {
  if (!(el instanceof Element) || el === document.body || el === document.documentElement) return false;
  return el.scrollWidth > el.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(el).overflowX);
}

function typing(target) {
  return target.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"], .cm-editor, .kv-editor');
}

export function bindKeys(getPlayer, stepList) {
  const onKey = (e) => {
    const player = getPlayer();
    if (!player || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    const actions = {
      ArrowLeft: () => player.prev(),
      ArrowRight: () => player.next(),
      Home: () => player.goTo(0),
      End: () => player.goTo(player.timeline.last),
      ' ': () => player.toggle(),
    };
    const action = actions[e.key];
    if (!action) return;
    if (e.key.startsWith('Arrow') && scrollsSideways(e.target)) return; // the region scrolls, as on any page
    const onPlayer = e.target.closest?.('.kv-figure');
    if (!onPlayer && !e.key.startsWith('Arrow')) return;
    const control = e.target.closest?.('button, a, summary');
    const ours = stepList() && stepList().root.contains(e.target) && !e.target.closest('.kv-fold'); // (it folds)
    if (e.key === ' ' && control && !ours) return;
    e.preventDefault();
    action();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
