// The step list: previous / play-pause / next, one button per step (the current one marked), and an aria-live
// region that reads each step's caption in words (its label when it has none); the canvas's drawing is named for
// the page and the step it shows. Its ⋮⋮ grip drags it onto the canvas, where it floats where dropped; dropped
// anywhere else it docks again. By keyboard: the grip's Enter/Space floats or docks it, arrow keys move it. Its bar
// (`bar`, the ←▶→ row) ends with the figure's tools (ui/figure-tools.js), which the figure appends.
import { h } from '../../lib/dom.js';
import { Scrubber } from './scrubber.js';

const NUDGE_PX = 16;

export class StepList {
  /** `player`: the Player; `canvas`: the element it can float over; `dock`: where it sits otherwise. */
  constructor(player, steps, canvas, dock) {
    Object.assign(this, { player, canvas, dock });
    this.grip = h('button', { class: 'kv-grip', type: 'button', title: 'Drag onto the canvas (Enter: float or dock; arrows: move)', 'aria-label': 'Move the step list' }, '⋮⋮');
    this.playButton = h('button', { class: 'kv-play', type: 'button', 'aria-label': 'Play', onclick: () => player.toggle() }, '▶');
    this.count = h('span', { class: 'kv-count', 'aria-hidden': 'true' });
    const bar = (this.bar = h(
      'div',
      { class: 'kv-steps-bar' },
      this.grip,
      h('button', { class: 'kv-prev', type: 'button', 'aria-label': 'Previous step', onclick: () => player.prev() }, '←'),
      this.playButton,
      h('button', { class: 'kv-next', type: 'button', 'aria-label': 'Next step', onclick: () => player.next() }, '→'),
      this.count,
    ));
    this.buttons = steps.map((step, k) => h('button', { type: 'button', 'data-goto': k, onclick: () => player.goTo(k) }, step.label));
    this.list = h('ol', { class: 'kv-step-items', start: 0 }, ...this.buttons.map((b) => h('li', {}, b)));
    this.scrubber = new Scrubber(player, steps); // (a row of its own: the bar is full at a phone's width)
    this.root = h('section', { class: 'kv-steps', 'aria-label': 'Steps of the figure' }, bar, this.scrubber.root, this.list);
    this.live = h('div', { class: 'kv-live', 'aria-live': 'polite', role: 'status' });
    dock.append(this.root, this.live);
    this.steps = steps;
    player.on('step', (k) => this.mark(k, true));
    player.on('playing', (on) => {
      this.playButton.textContent = on ? '❚❚' : '▶';
      this.playButton.setAttribute('aria-label', on ? 'Pause' : 'Play');
    });
    this.mark(player.current, false);
    this.gripEvents();
  }

  mark(k, announce) {
    this.buttons.forEach((b, i) => (i === k ? b.setAttribute('aria-current', 'step') : b.removeAttribute('aria-current')));
    this.count.textContent = `${k} / ${this.steps.length - 1}`;
    const step = this.steps[k];
    const words = step.caption || step.label;
    if (announce) this.live.textContent = words;
    const title = document.querySelector('h1')?.textContent.trim();
    const name = `${title ? `Figure of ${title}` : 'Figure'}, step ${k} of ${this.steps.length - 1}: ${words}`;
    this.canvas.querySelector('svg')?.setAttribute('aria-label', name);
    if (k > 0 || announce) requestAnimationFrame(() => this.reveal(k)); // (reading layout now would force it)
  }

  /** Scroll the list, and only the list, so that step k's button is in view. */
  reveal(k) {
    const item = this.buttons[k].parentElement;
    const list = this.list;
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
  }

  floating() {
    return this.root.classList.contains('kv-floating');
  }

  /** Float at (left, top) px within the canvas, kept inside it. */
  floatAt(left, top) {
    if (this.root.parentElement !== this.canvas) this.canvas.append(this.root);
    this.root.classList.add('kv-floating');
    const maxLeft = Math.max(0, this.canvas.clientWidth - this.root.offsetWidth);
    const maxTop = Math.max(0, this.canvas.clientHeight - this.root.offsetHeight);
    this.root.style.left = `${Math.round(Math.min(maxLeft, Math.max(0, left)))}px`;
    this.root.style.top = `${Math.round(Math.min(maxTop, Math.max(0, top)))}px`;
  }

  dockAgain() {
    this.root.classList.remove('kv-floating');
    this.root.style.left = this.root.style.top = '';
    this.dock.prepend(this.root);
  }

  gripEvents() {
    let drag = null;
    this.grip.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      const box = this.root.getBoundingClientRect();
      drag = { dx: e.clientX - box.left, dy: e.clientY - box.top, x0: e.clientX, y0: e.clientY, moved: false };
      this.root.classList.add('kv-dragging');
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    });
    const move = (e) => {
      drag.moved ||= Math.abs(e.clientX - drag.x0) + Math.abs(e.clientY - drag.y0) > 3;
      this.root.style.translate = `${e.clientX - drag.x0}px ${e.clientY - drag.y0}px`;
    };
    const up = (e) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      this.root.classList.remove('kv-dragging');
      this.root.style.translate = '';
      const c = this.canvas.getBoundingClientRect();
      const inside = e.clientX >= c.left && e.clientX <= c.right && e.clientY >= c.top && e.clientY <= c.bottom;
      if (drag.moved) {
        if (inside) this.floatAt(e.clientX - drag.dx - c.left, e.clientY - drag.dy - c.top);
        else this.dockAgain();
        this.suppressClick = true; // the click that may follow this pointerup, and only that one
        setTimeout(() => (this.suppressClick = false));
      }
      drag = null;
    };
    this.grip.addEventListener('click', () => {
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      if (this.floating()) this.dockAgain();
      else this.floatAt(this.canvas.clientWidth, 0);
      this.grip.focus();
    });
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    this.grip.addEventListener('keydown', (e) => {
      const d = arrows[e.key];
      if (!d) return;
      e.preventDefault();
      e.stopPropagation();
      if (!this.floating()) this.floatAt(this.canvas.clientWidth, 0);
      this.floatAt(this.root.offsetLeft + d[0] * NUDGE_PX, this.root.offsetTop + d[1] * NUDGE_PX);
      this.grip.focus();
    });
  }

  remove() {
    this.root.remove();
    this.live.remove();
  }
}
