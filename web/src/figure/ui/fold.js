// "Fold": on a narrow screen, where the figure is docked over the prose (page/layout.css), the reader may fold it
// down to its step player's row, so as to read the text (and its pictures) in the whole screen, and unfold it again.
// A disclosure button (aria-expanded, aria-controls the canvas) at the end of the player's row, shown only while the
// figure is docked; the choice is remembered for every page (localStorage, when the browser allows it) and said in
// the figure's live region as well. The figure's host carries data-folded="true" while folded; on a wide screen,
// where the figure has a column of its own, the CSS ignores it.
import { h } from '../../lib/dom.js';

const KEY = 'kv-figure-folded';

function remembered() {
  try {
    return localStorage.getItem(KEY) === 'true';
  } catch {
    return false;
  }
}

export class Fold {
  /** `host`: the figure's element; `canvas`: the element folded away (its id goes in aria-controls); `beforeFold`:
   * called as it folds (the figure docks a step list floating over the canvas, which would fold away with it). */
  constructor(host, canvas, beforeFold = () => {}) {
    Object.assign(this, { host, beforeFold });
    canvas.id ||= 'kv-canvas';
    this.live = h('span', { class: 'kv-fold-live', role: 'status', 'aria-live': 'polite' }); // (hidden as .kv-live)
    this.button = h('button', { type: 'button', class: 'kv-fold', 'aria-controls': canvas.id }, '');
    this.button.addEventListener('click', () => {
      this.set(!this.folded, true);
      try {
        localStorage.setItem(KEY, String(this.folded));
      } catch {
        // private browsing without storage: the choice holds for this visit
      }
    });
    this.set(remembered(), false);
  }

  /** Fold (true) or unfold the figure; `say`: tell a screen reader too. */
  set(folded, say) {
    if (folded) this.beforeFold();
    this.folded = folded;
    this.host.dataset.folded = String(folded);
    this.button.setAttribute('aria-expanded', String(!folded));
    this.button.setAttribute('aria-label', folded ? 'Unfold the figure' : 'Fold the figure away');
    this.button.title = folded ? 'Show the figure again' : 'Fold the figure to its player, to read the text';
    this.button.textContent = folded ? '▾' : '▴';
    if (say) this.live.textContent = folded ? 'Figure folded: the text has the screen' : 'Figure shown';
  }

  /** Put the button at the end of the player's row `bar` (again after each new scene). */
  place(bar) {
    bar.append(this.button, this.live);
  }
}
