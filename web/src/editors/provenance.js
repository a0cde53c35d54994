// Where the figure came from, said above it, so that a reader always knows which code drew the picture in front of
// them. The figure is either the page's (drawn at build time from the page's code) or the last run's (the code of
// the editors it ran, as they were then). Compared with the code in the editors now, that gives four states, on the
// badge as data-state with a sentence, and a Run button where running would change the figure:
//   page            the page's figure, and the editors hold the page's code
//   edits-not-run   the page's figure, but an editor holds the reader's edit (kept from an earlier visit): Run
//   ran             the last run's figure, from the code the editors hold now
//   changed         the last run's figure, but the code has changed since: Run
// Reset back to the page's code in every editor brings the page's figure back.
import { h as el } from '../lib/dom.js';
import { currentScene, currentSizes, ranAt, showScene } from './figure.js';

const SAID = {
  page: "Figure: from the page's code.",
  'edits-not-run': "Figure: from the page's code, not your edits.",
  ran: 'Figure: from the code as run.',
  changed: 'Figure: from earlier code; the code has changed since.',
};

export class Provenance {
  #badge = null;
  #text = null;
  #source = null; // null: the page's figure; else {codes: [code of each editor run], all: whether all ran}
  #pageScene = null; // the page's figure, kept when a run replaces it
  #pageSizes = null; // the sizes it was drawn at (the size form's)

  /** The badge, first in `doc`'s figure (none on a page without one); its Run button calls `run()`. */
  constructor(doc, run) {
    const figure = doc.getElementById('kv-figure');
    if (!figure) return;
    this.#text = el('span', { class: 'kv-figure-source-text' });
    const button = el('button', { type: 'button', class: 'kv-figure-source-run' }, 'Run');
    button.addEventListener('click', () => run());
    this.#badge = el('p', { class: 'kv-figure-source', 'aria-live': 'polite' }, this.#text, ' ', button);
    figure.prepend(this.#badge);
  }

  /** The state for `editors` now (see the top of this file). */
  state(editors) {
    if (this.#source === null) return editors.some((e) => e.edited()) ? 'edits-not-run' : 'page';
    const { codes } = this.#source;
    return codes.every((code, i) => editors[i]?.code() === code) ? 'ran' : 'changed';
  }

  /** Say where the figure came from, for `editors` as they are now. */
  show(editors) {
    if (!this.#badge) return;
    const state = this.state(editors);
    this.#badge.dataset.state = state;
    this.#text.textContent = SAID[state];
  }

  /** Draw `scene`, the run of `editors` 0..last. Returns null, or why the figure did not change (figure.js). */
  draw(scene, editors, last) {
    const page = this.#source === null ? currentScene() : null;
    const sizes = currentSizes();
    const problem = showScene(scene);
    if (problem) return problem;
    if (page) [this.#pageScene, this.#pageSizes] = [page, sizes];
    const codes = editors.slice(0, last + 1).map((e) => e.code());
    const pagesOwn = last === editors.length - 1 && editors.every((e) => !e.edited());
    this.#source = pagesOwn ? null : { codes }; // the page's code, all of it: the page's figure again
    this.show(editors);
    return null;
  }

  /** After a Reset: when every editor holds the page's code again, the page's figure comes back. */
  reset(editors) {
    if (this.#source !== null && editors.every((e) => !e.edited()) && this.#pageScene) {
      if (showScene(this.#pageScene) === null) {
        this.#source = null;
        ranAt(this.#pageSizes, false); // the size form shows the sizes of the page's figure again
      }
    }
    this.show(editors);
  }
}
