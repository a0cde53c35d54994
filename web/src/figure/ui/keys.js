// The figure's keys, anywhere on the page but in a text field or an editor: ← previous step, → next, Home the
// first, End the last, space play / pause. Space on a button or link keeps its usual meaning, except on the step
// list's own buttons.

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
    const control = e.target.closest?.('button, a, summary');
    const ours = stepList() && stepList().root.contains(e.target);
    if (e.key === ' ' && control && !ours) return;
    e.preventDefault();
    action();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
