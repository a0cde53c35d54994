// The step player: which step the figure shows, and how it gets there.
//
// goTo(k) from step k-1 plays step k: its `start` is drawn at once, the moving items animate to `move` over
// requestAnimationFrame, then `end` settles. From anywhere else, the diffs up to step k-1 are folded without
// animation and step k is played, so every path to step k ends on the same figure. Step 0 is shown, not played.
// With reduced motion (or animate: false) the step's end is drawn at once. play() advances step after step.
//
// Events: on('step', fn(k)) when the step changes, on('playing', fn(bool)) when auto-play starts or stops,
// on('animating', fn(bool)) when a step's animation starts or settles.
import { frameAt, totalTime } from './tween.js';
import { sleep } from '../lib/schedule.js';

const PAUSE = 1.5; // between two steps when playing, in step durations

export class Player {
  /** `draw(items)` draws the diagram; options: duration() in ms, reducedMotion() -> bool, busy() -> a promise while
   * the page runs a long task that cannot be split (null when none): a step asked for then is shown at once and
   * starts to move once that settles, so that the task does not cut into its animation. */
  constructor(timeline, draw, { duration, reducedMotion, busy = () => null }) {
    Object.assign(this, { timeline, draw, duration, reducedMotion, busy });
    this.current = 0;
    this.speed = 1; // the scrubber's speed: a step's animation and the pause between steps take 1 / speed as long
    this.shown = null; // the items last drawn
    this.playing = false;
    this.animating = false;
    this.listeners = { step: [], playing: [], animating: [] };
    this.run = 0; // bumps to cancel an animation in flight
    this.playRun = 0; // bumps to stop auto-play
  }

  on(event, fn) {
    this.listeners[event].push(fn);
    return () => {
      this.listeners[event] = this.listeners[event].filter((f) => f !== fn);
    };
  }

  emit(event, value) {
    for (const fn of this.listeners[event]) fn(value);
  }

  show(items) {
    if (items !== this.shown) this.draw(items);
    this.shown = items;
  }

  /** Show step k (clamped to the list); the promise says whether its animation ran to the end. Stops auto-play. */
  goTo(k, options) {
    this.pause();
    return this.reach(k, options);
  }

  reach(k, { animate = true } = {}) {
    k = Math.max(0, Math.min(this.timeline.last, Math.trunc(Number(k)) || 0));
    this.cancel();
    const changed = k !== this.current;
    this.current = k;
    if (changed) this.emit('step', k);
    if (k === 0 || !animate || this.reducedMotion()) {
      this.show(this.timeline.state(k));
      return Promise.resolve(true);
    }
    return this.animate(k);
  }

  animate(k) {
    const phases = this.timeline.phases(k);
    const duration = this.duration() / this.speed;
    const total = totalTime(phases.moving, duration);
    const run = this.run;
    this.show(phases.start);
    this.setAnimating(true);
    return new Promise((resolve) => {
      this.settle = resolve;
      let t0 = null;
      const frame = (now) => {
        if (run !== this.run) return;
        t0 ??= now;
        const t = now - t0;
        if (t >= total) {
          this.show(phases.end);
          this.settle = null;
          this.setAnimating(false);
          resolve(true);
          return;
        }
        this.show(frameAt(phases, t, duration));
        this.frame = requestAnimationFrame(frame);
      };
      const begin = () => {
        if (run === this.run) this.frame = requestAnimationFrame(frame);
      };
      const busy = this.busy();
      if (busy) busy.then(begin, begin);
      else begin();
    });
  }

  setAnimating(on) {
    if (on === this.animating) return;
    this.animating = on;
    this.emit('animating', on);
  }

  /** Stop an animation in flight where it is; the caller draws what comes next. */
  cancel() {
    this.run++;
    cancelAnimationFrame(this.frame);
    if (this.settle) this.settle(false);
    this.settle = null;
    this.setAnimating(false);
  }

  next() {
    return this.goTo(this.current + 1);
  }

  prev() {
    return this.goTo(this.current - 1);
  }

  /** Play the steps one after another from the current one (from the start when at the end). */
  async play() {
    if (this.playing) return;
    const run = ++this.playRun;
    this.playing = true;
    this.emit('playing', true);
    const still = () => run === this.playRun;
    if (this.current >= this.timeline.last) await this.reach(0);
    while (still() && this.current < this.timeline.last) {
      const done = await this.reach(this.current + 1);
      if (!done || !still() || this.current >= this.timeline.last) break;
      await sleep((PAUSE * this.duration()) / this.speed);
    }
    if (still()) this.pause();
  }

  pause() {
    this.playRun++;
    if (!this.playing) return;
    this.playing = false;
    this.emit('playing', false);
  }

  toggle() {
    return this.playing ? this.pause() : this.play();
  }

  destroy() {
    this.pause();
    this.cancel();
    for (const key of Object.keys(this.listeners)) this.listeners[key] = [];
  }
}
