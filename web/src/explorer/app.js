// The explorer: settings in, canvas + code + metrics out. One state object, one render; the URL follows it.
//
// mount(root) reads the state from the query string, builds the controls, the canvas, the phase stepper, the
// code lines and the metrics inside root, and re-renders synchronously on every change (a render is a few
// hundred DOM nodes; performance measure "kvx-render" times each one). The softmax check runs on N random
// numbers, so it runs just after the frame that shows the new settings, and only when N or Bc changed.

import { budgetBytes } from './budgets.js';
import { drawCanvas } from './canvas.js';
import { buildControls } from './controls.js';
import { h } from '../lib/dom.js';
import { buildLegend } from './legend.js';
import { bytes } from './format.js';
import * as F from './formulas.js';
import { buildMetrics } from './metrics.js';
import { CODE, PHASES, stepAt, stepCount, stepIndex, WRITE_LINE } from './phases.js';
import { CASES, softmaxCheck } from './softmax.js';
import { fa2_sram, sram_fit } from './sram.js';
import { DTYPES, normalize, parse, serialize, visitedTiles } from './state.js';
import { buildStepper } from './stepper.js';

const URL_DELAY_MS = 150; // the address bar follows a dragged slider at this pace (browsers throttle history)

/** Everything the views need, computed from a state with the ported formulas. */
export function derive(state) {
  const { N, d, Br, Bc, causal } = state;
  const s = DTYPES[state.dtype];
  const Tr = F.cdiv(N, Br);
  const Tc = F.cdiv(N, Bc);
  const sram = fa2_sram(Br, Bc, d, s);
  const budget = budgetBytes(state.sram);
  const fit = sram_fit(sram, budget);
  const visited = visitedTiles(state);
  const metrics = {
    scoreBytes: F.score_matrix_bytes(N, null, s),
    tileInteractions: F.tile_interactions(N, Br, Bc, null, causal),
    allTiles: Tr * Tc,
    Tr,
    Tc,
    standard: F.total(F.standard(N, d, Br, Bc, null, causal, s)),
    fa2: F.total(F.fa2(N, d, Br, Bc, null, causal, s)),
    compulsory: F.total(F.compulsory(N, d, null, s)),
    sram: fit,
    budget,
  };
  return { state, Tr, Tc, visited, sram, fit, budget, metrics };
}

/** The sizes of each SRAM tile, in words: "Sij (64×64 float32, 16 KiB)". */
function describeTile(name, view) {
  const { Br, Bc, d, dtype } = view.state;
  const shape = { Qi: `${Br}×${d} ${dtype}`, Kj: `${Bc}×${d} ${dtype}`, Vj: `${Bc}×${d} ${dtype}` };
  Object.assign(shape, { Sij: `${Br}×${Bc} float32`, Oi: `${Br}×${d} float32` });
  Object.assign(shape, { mi: `${Br} float32`, li: `${Br} float32` });
  return `${name} (${shape[name]}, ${bytes(view.sram[name])})`;
}

/** The status line: the score matrix is never resident, or which tile does not fit the budget. */
export function statusText(view) {
  const { fit, budget } = view;
  if (fit.fits) {
    const s = bytes(view.sram.Sij);
    const fits = `the block fits ${bytes(budget)}`;
    return `Ready: global score matrix is not resident; one score tile Sij (${s}) is, and ${fits}.`;
  }
  const [first, ...rest] = fit.over;
  const also = rest.length ? ` Nor ${rest.length === 1 ? 'does' : 'do'} ${rest.join(', ')}.` : '';
  return (
    `Over budget: ${describeTile(first, view)} does not fit; the block needs ${bytes(fit.total)} ` +
    `of SRAM and the budget is ${bytes(budget)}.${also}`
  );
}

function buildCode() {
  const lines = CODE.map((text, k) => {
    const line = h('span', { class: 'kvx-line', 'data-line': k });
    line.textContent = `${text}\n`;
    return line;
  });
  const title = h('h3', { class: 'kvx-phase-title' });
  const text = h('p', { class: 'kvx-phase-text' });
  const pre = h('pre', { class: 'kvx-code', 'aria-label': 'The FA2 block, in Python-like pseudocode' }, [
    h('code', {}, lines),
  ]);
  const element = h('div', { class: 'kvx-code-panel' }, [title, text, pre]);
  function update(state, written) {
    const phase = PHASES[state.phase];
    title.textContent = `${state.phase + 1}. ${phase.title}`;
    text.textContent = written ? `${phase.text} This was the last tile: Oi / li goes to HBM, once.` : phase.text;
    lines.forEach((line, k) => {
      const on = phase.lines.includes(k) || (written && k === WRITE_LINE);
      line.classList.toggle('is-current', on);
    });
  }
  return { element, update };
}

export function mount(root, { location = window.location, history = window.history } = {}) {
  const explorer = new Explorer(root, location, history);
  return { state: () => explorer.state, set: explorer.set };
}

/** The explorer mounted in `root`: its state, its parts, and the render that shows the one in the others. */
class Explorer {
  constructor(root, location, history) {
    Object.assign(this, { location, history });
    this.state = parse(location.search);
    this.view = null;
    this.playTimer = null;
    this.urlTimer = null;
    this.softmaxKey = null;
    this.softmaxScheduled = false;
    this.set = (fields) => {
      this.state = normalize({ ...this.state, ...fields });
      this.render();
    };
    this.build(root);
    this.render();
    this.redrawOnResize();
    root.dataset.ready = 'true';
  }

  /** The walk through the steps: {index, count} of the current step. */
  walk() {
    return { index: stepIndex(this.state.phase, this.state.j, this.view.visited), count: stepCount(this.view.visited) };
  }

  goTo(index) {
    this.set(stepAt(index, this.view.visited));
  }

  play() {
    if (this.walk().index === this.walk().count - 1) this.goTo(0);
    this.playTimer = setInterval(() => {
      if (this.walk().index >= this.walk().count - 1) return this.stop();
      this.goTo(this.walk().index + 1);
    }, this.stepper.PLAY_MS);
    this.render();
  }

  stop() {
    clearInterval(this.playTimer);
    this.playTimer = null;
    this.render();
  }

  /** The parts (controls, stepper, canvas, legend, status, code, metrics), laid out in `root`. */
  build(root) {
    this.controls = buildControls(this.set);
    this.stepper = buildStepper({
      goPhase: (phase) => this.set({ phase }),
      step: (delta) => this.goTo(this.walk().index + delta),
      goEnd: (which) => this.goTo(which === 'start' ? 0 : this.walk().count - 1),
      setI: (i) => this.set({ i }),
      playing: () => this.playTimer !== null,
      togglePlay: () => (this.playTimer ? this.stop() : this.play()),
    });
    this.code = buildCode();
    this.legend = buildLegend();
    this.metrics = buildMetrics(CASES);
    this.figure = h('div', { class: 'kvx-canvas' });
    this.status = h('p', { class: 'kvx-status', role: 'status', 'aria-live': 'polite' });
    root.replaceChildren(
      h('div', { class: 'kvx' }, [
        this.controls.element,
        h('div', { class: 'kvx-stage' }, [
          h('div', { class: 'kvx-figure-col' }, [this.figure, this.legend.element, this.status]),
          h('div', { class: 'kvx-side' }, [this.stepper.element, this.code.element]),
        ]),
        this.metrics.element,
      ]),
    );
  }

  render() {
    const t0 = performance.now();
    const { state } = this;
    const view = (this.view = derive(state));
    const written = state.phase === 3 && state.j === view.visited.at(-1);
    this.controls.update(state);
    this.stepper.update(state, { Tr: view.Tr, visited: view.visited, ...this.walk() });
    this.figure.replaceChildren(drawCanvas(view, this.figure.clientWidth || undefined));
    this.legend.update(state);
    this.status.textContent = statusText(view);
    this.status.classList.toggle('is-over', !view.fit.fits);
    this.code.update(state, written);
    this.metrics.update(view.metrics, state);
    this.scheduleSoftmax();
    this.scheduleUrl();
    performance.measure('kvx-render', { start: t0, end: performance.now() });
  }

  /** The address bar follows the state, URL_DELAY_MS after the last change. */
  scheduleUrl() {
    const { location, history } = this;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      const search = serialize(this.state);
      if (location.search !== search) history.replaceState(history.state, '', search + location.hash);
    }, URL_DELAY_MS);
  }

  /** The softmax check, when N or Bc changed, after the frame that shows the new settings: it never holds a
   * control back. */
  scheduleSoftmax() {
    if (`${this.state.N}:${this.state.Bc}` === this.softmaxKey || this.softmaxScheduled) return;
    this.softmaxScheduled = true;
    this.metrics.pending();
    requestAnimationFrame(() =>
      setTimeout(() => {
        this.softmaxScheduled = false;
        const { N, Bc } = this.state;
        this.softmaxKey = `${N}:${Bc}`;
        this.metrics.updateSoftmax(softmaxCheck(N, Bc), N, Bc);
      }, 0),
    );
  }

  /** Redraw the canvas when its column changes width enough to change its layout (a phone turned sideways). */
  redrawOnResize() {
    let drawnWidth = this.figure.clientWidth;
    new ResizeObserver(() => {
      if (Math.abs(this.figure.clientWidth - drawnWidth) < 24) return;
      drawnWidth = this.figure.clientWidth;
      this.figure.replaceChildren(drawCanvas(this.view, drawnWidth));
    }).observe(this.figure);
  }
}
