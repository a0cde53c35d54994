// The scrubber: a range over the figure's steps, and the speed it plays at, in a row under the step player's
// buttons. Dragging it (or its arrow keys) shows each step it passes at once, without animation; it follows the
// player whichever way the step changed (buttons, keys, bullets, the URL). The speed (½×, 1×, 2×, 4×) divides the
// duration of a step's animation and of the pause between two steps while playing (player.speed).
//
//   new Scrubber(player, steps).root: the row (the figure's zoom buttons join it: ui/zoom.js)
import { h, options } from '../../lib/dom.js';

export const SPEEDS = [0.5, 1, 2, 4];

export class Scrubber {
  constructor(player, steps) {
    const last = steps.length - 1;
    this.range = h('input', {
      class: 'kv-scrub',
      type: 'range',
      min: 0,
      max: last,
      step: 1,
      value: player.current,
      'aria-label': 'Step',
      'aria-valuetext': `step ${player.current} of ${last}`,
      oninput: () => player.goTo(Number(this.range.value), { animate: false }),
    });
    const speeds = SPEEDS.map((s) => [s, `${s === 0.5 ? '½' : s}×`]);
    this.speed = h('select', { class: 'kv-speed', 'aria-label': 'Speed', title: 'Speed', onchange: () => (player.speed = Number(this.speed.value)) }, options(speeds));
    this.speed.value = '1';
    this.root = h('div', { class: 'kv-scrubber' }, this.range, this.speed);
    player.on('step', (k) => this.mark(k, last));
  }

  mark(k, last) {
    this.range.value = String(k);
    this.range.setAttribute('aria-valuetext', `step ${k} of ${last}`);
  }
}
