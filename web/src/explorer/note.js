// The note that says what the explorer changed in the link it was opened with (state.js `read`): one line per value,
// "N=0 → 64: the explorer shows 64 to 131072", polite (a status, not an alert), dismissed by its button.

import { h, setText } from './dom.js';

/** The note for `corrections` ([{key, given, used, why}]), or null when there are none. */
export function buildNote(corrections) {
  if (!corrections.length) return null;
  const items = corrections.map(({ key, given, used, why }) => {
    const item = h('li', { 'data-key': key });
    setText(item, `${key}=${given} → ${used}: ${why}`);
    return item;
  });
  const text = h('p');
  const one = corrections.length === 1;
  setText(text, `The link asked for ${one ? 'a value' : 'values'} the explorer cannot show, so it shows ${
    one ? 'this one' : 'these'} instead:`);
  const close = h('button', { type: 'button', class: 'kvx-corrected-close' });
  setText(close, 'Dismiss');
  const note = h('div', { class: 'kvx-corrected', role: 'status', 'aria-live': 'polite' }, [
    text,
    h('ul', {}, items),
    close,
  ]);
  close.addEventListener('click', () => note.remove());
  return note;
}
