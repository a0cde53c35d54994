// "Follow": whether stepping (→ and ←, the step list, Play) scrolls the text to the step's bullet. A reader reading
// a paragraph who presses → to see the next step stays in their paragraph (on FA2 the bullet of the next step is
// 2,300 px further down). Following is off at first, and on once the reader steps from a bullet (they are reading
// along with the steps), until they press the toggle, whose choice then holds for the rest of the page's visit.
// The toggle sits in the step player's row, with the figure's tools, showing its state (aria-pressed).
import { h } from '../../lib/dom.js';

export class Follow {
  constructor() {
    this.on = false;
    this.chosen = false; // the reader pressed the toggle: bullets no longer turn it on
    this.button = h(
      'button',
      {
        type: 'button',
        class: 'kv-follow',
        'aria-pressed': 'false',
        'aria-label': 'Follow the steps in the text',
        title: 'Scroll the text to each step’s bullet as the figure steps',
      },
      'Follow',
    );
    this.button.addEventListener('click', () => {
      this.chosen = true;
      this.set(!this.on);
    });
  }

  set(on) {
    this.on = on;
    this.button.setAttribute('aria-pressed', String(on));
  }

  /** The reader stepped from a bullet: follow the steps, unless they chose otherwise. */
  fromBullet() {
    if (!this.chosen) this.set(true);
  }
}
