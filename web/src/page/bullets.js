// The page's step bullets (li[data-step] or li[data-step-key], outside the figure) from the keyboard: each is a
// tab stop, and Enter or Space on it plays its step, as a click does (the figure's page bindings handle the click).
// Space there plays instead of scrolling; everywhere else but the player it scrolls as usual (ui/keys.js).

const BULLETS = 'li[data-step], li[data-step-key]';

/** Make the bullets of `doc` focusable and operable from the keyboard. Returns how many there are. */
export function keyboardBullets(doc = document) {
  const bullets = [...doc.querySelectorAll(BULLETS)].filter((li) => !li.closest('.kv-figure'));
  for (const li of bullets) {
    li.tabIndex = 0;
    if (!li.hasAttribute('aria-keyshortcuts')) li.setAttribute('aria-keyshortcuts', 'Enter Space');
  }
  doc.addEventListener('keydown', (e) => {
    if ((e.key !== 'Enter' && e.key !== ' ') || e.altKey || e.ctrlKey || e.metaKey) return;
    const li = e.target.closest?.(BULLETS);
    if (!li || li !== e.target || li.closest('.kv-figure')) return;
    e.preventDefault();
    if (li.getAttribute('aria-disabled') !== 'true') li.click();
  });
  return bullets.length;
}
