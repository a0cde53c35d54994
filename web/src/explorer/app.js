// The explorer: settings in, canvas + code + metrics out. One state object, one render; the URL follows it.
//
// mount(root) reads the state from the query string, builds the controls, the canvas, the phase stepper, the
// code lines and the metrics inside root (taking over the ones drawn at build time, adopt.js, when the state is the
// build's), and re-renders synchronously on every change (a render is a few
// hundred DOM nodes; performance measure "kvx-render" times each one). The softmax check runs on N random
// numbers, so it runs just after the frame that shows the new settings, and only when N or Bc changed.

import { anew, startAdopting, stopAdopting } from './adopt.js';
import { budgetBytes, REGISTER_FILE_BYTES } from './budgets.js';
import { canvasWidth, drawCanvas } from './canvas.js';
import { buildControls } from './controls.js';
import { h, setText } from './dom.js';
import { buildLegend } from './legend.js';
import { bytes } from './format.js';
import { hbm_footprint, traffic_ratio_limit } from './footprint.js';
import * as F from './formulas.js';
import { buildMetrics } from './metrics.js';
import { CODE, PHASES, stepAt, stepCount, stepIndex, WRITE_LINE } from './phases.js';
import { CASES, softmaxCheck } from './softmax.js';
import { blockSplit, sram_fit } from './sram.js';
import { buildNote } from './note.js';
import { DTYPES, normalize, read, serialize, visitedTiles } from './state.js';
import { evaluate, explorerPair } from './topics.js';
import { buildStepper } from './stepper.js';

const URL_DELAY_MS = 150; // the address bar follows a dragged slider at this pace (browsers throttle history)

/** {baseline's name: bytes, explored's name: bytes} of HBM traffic, from their records' closed forms. */
function moved(N, d, Br, Bc, causal, itemsize) {
  const sizes = { N, d, Br, Bc, N_kv: null, causal, itemsize, batch_heads: 1 };
  const { explored, baseline } = explorerPair();
  const total = (r) => F.total(evaluate(r.name, 'bytes', sizes));
  return { [baseline.name]: total(baseline), [explored.name]: total(explored) };
}

/** Everything the views need, computed from a state with the generated formulas. */
export function derive(state) {
  const { N, d, Br, Bc, causal } = state;
  const s = DTYPES[state.dtype];
  const Tr = F.cdiv(N, Br);
  const Tc = F.cdiv(N, Bc);
  const { shared, registers } = blockSplit(Br, Bc, d, s);
  const budget = budgetBytes(state.sram);
  const fit = sram_fit(shared, budget);
  const regFit = sram_fit(registers, REGISTER_FILE_BYTES);
  const visited = visitedTiles(state);
  const footprint = hbm_footprint(N, d, s);
  const metrics = {
    scoreBytes: F.score_matrix_bytes(N, null, s),
    tileInteractions: F.tile_interactions(N, Br, Bc, null, causal),
    allTiles: Tr * Tc,
    Tr,
    Tc,
    moved: { ...moved(N, d, Br, Bc, causal, s), compulsory: F.total(F.compulsory(N, d, null, s)) },
    limit: traffic_ratio_limit(Br, d, causal),
    footprint,
    shared: fit,
    registers: regFit,
    budget,
  };
  return { state, Tr, Tc, visited, shared, registers, fit, regFit, budget, metrics };
}

/** The sizes of each on-chip tile, in words: "Sij (64×64 float32, 16 KiB)". */
function describeTile(name, view) {
  const { Br, Bc, d, dtype } = view.state;
  const shape = { Qi: `${Br}×${d} ${dtype}`, Kj: `${Bc}×${d} ${dtype}`, Vj: `${Bc}×${d} ${dtype}` };
  Object.assign(shape, { Sij: `${Br}×${Bc} float32`, Oi: `${Br}×${d} float32` });
  Object.assign(shape, { mi: `${Br} float32`, li: `${Br} float32` });
  const bytesOf = view.shared[name] ?? view.registers[name];
  return `${name} (${shape[name]}, ${bytes(bytesOf)})`;
}

/** The status line: the score matrix is never resident, or which tile does not fit shared memory, or that the
 * register tiles alone pass the register file. */
export function statusText(view) {
  const { fit, regFit, budget } = view;
  if (!fit.fits) {
    const [first, ...rest] = fit.over;
    const also = rest.length ? ` Nor ${rest.length === 1 ? 'does' : 'do'} ${rest.join(', ')}.` : '';
    return (
      `Over budget: ${describeTile(first, view)} does not fit; the block needs ${bytes(fit.total)} ` +
      `of shared memory and the budget is ${bytes(budget)}.${also}`
    );
  }
  if (!regFit.fits) {
    return (
      `Over the register file: Sij, Oi, mi, li need ${bytes(regFit.total)} of registers, more than the ` +
      `${bytes(REGISTER_FILE_BYTES)} a block may have; a kernel with these tiles would spill them.`
    );
  }
  const s = bytes(view.registers.Sij);
  return (
    `Ready: global score matrix is not resident; one score tile Sij (${s}) is, in registers, and ` +
    `Qi, Kj, Vj fit ${bytes(budget)} of shared memory.`
  );
}

function buildCode() {
  const lines = CODE.map((text, k) => {
    const line = h('span', { class: 'kvx-line', 'data-line': k });
    setText(line, `${text}\n`);
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
    setText(title, `${state.phase + 1}. ${phase.title}`);
    setText(text, written ? `${phase.text} This was the last tile: Oi / li goes to HBM, once.` : phase.text);
    lines.forEach((line, k) => {
      const on = phase.lines.includes(k) || (written && k === WRITE_LINE);
      line.classList.toggle('is-current', on);
    });
  }
  return { element, update };
}

export function mount(root, { location = window.location, history = window.history } = {}) {
  const opened = read(location.search);
  let state = opened.state;
  let view = null;
  let playTimer = null;

  const set = (fields) => {
    state = normalize({ ...state, ...fields });
    render();
  };
  const walk = () => ({ index: stepIndex(state.phase, state.j, view.visited), count: stepCount(view.visited) });
  const goTo = (index) => set(stepAt(index, view.visited));

  // the explorer drawn at build time, taken over as it is when it shows this state (adopt.js)
  const drawn = root.querySelector(':scope > .kvx[data-prerendered]');
  startAdopting(drawn?.dataset.state === serialize(state) ? drawn : null);
  const controls = buildControls(set);
  const stepper = buildStepper({
    goPhase: (phase) => set({ phase }),
    step: (delta) => goTo(walk().index + delta),
    goEnd: (which) => goTo(which === 'start' ? 0 : walk().count - 1),
    setI: (i) => set({ i }),
    playing: () => playTimer !== null,
    togglePlay: () => (playTimer ? stop() : play()),
  });
  function play() {
    if (walk().index === walk().count - 1) goTo(0);
    playTimer = setInterval(() => {
      if (walk().index >= walk().count - 1) return stop();
      goTo(walk().index + 1);
    }, stepper.PLAY_MS);
    render();
  }
  function stop() {
    clearInterval(playTimer);
    playTimer = null;
    render();
  }

  const code = buildCode();
  const legend = buildLegend();
  const metrics = buildMetrics(CASES);
  const figure = h('div', { class: 'kvx-canvas' });
  const status = h('p', { class: 'kvx-status', role: 'status', 'aria-live': 'polite' });
  const kvx = layout({ controls, stepper, figure, legend, status, code, metrics });
  const scheduleUrl = urlWriter(() => state, location, history);
  const scheduleSoftmax = softmaxChecker(() => state, metrics);
  if (kvx.parentNode !== root) root.replaceChildren(kvx); // (the drawn one stays in its place)

  function render() {
    const t0 = performance.now();
    view = derive(state);
    const written = state.phase === 3 && state.j === view.visited.at(-1);
    controls.update(state);
    stepper.update(state, { Tr: view.Tr, visited: view.visited, ...walk() });
    const width = figure.clientWidth || undefined;
    const shown = figure.children[0]?.getAttribute('viewBox') ?? '';
    const fits = shown.startsWith(`0 0 ${canvasWidth(width)} `); // a canvas drawn at this width is taken over
    const svg = fits ? drawCanvas(view, width) : anew(() => drawCanvas(view, width));
    if (figure.firstChild !== svg || figure.childNodes.length !== 1) figure.replaceChildren(svg);
    legend.update(state);
    setText(status, statusText(view));
    status.classList.toggle('is-over', !view.fit.fits || !view.regFit.fits);
    code.update(state, written);
    metrics.update(view.metrics, state);
    scheduleSoftmax();
    scheduleUrl();
    performance.measure('kvx-render', { start: t0, end: performance.now() });
  }

  render();
  stopAdopting();
  kvx.removeAttribute('data-prerendered');
  const note = buildNote(opened.corrections); // (after the takeover: the build drew none)
  if (note) kvx.prepend(note);
  followWidth(figure, (width) => figure.replaceChildren(drawCanvas(view, width)));
  root.dataset.ready = 'true';
  return { state: () => state, set };
}

/** The explorer's parts in their places: the controls, the stage (the figure, its legend and status beside the
 * stepper and the code), the metrics. */
function layout({ controls, stepper, figure, legend, status, code, metrics }) {
  return h('div', { class: 'kvx' }, [
    controls.element,
    h('div', { class: 'kvx-stage' }, [
      h('div', { class: 'kvx-figure-col' }, [figure, legend.element, status]),
      h('div', { class: 'kvx-side' }, [stepper.element, code.element]),
    ]),
    metrics.element,
  ]);
}

/** A function that writes `state()` to the URL (replaceState) once the settings rest for URL_DELAY_MS. */
function urlWriter(state, location, history) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const search = serialize(state());
      if (location.search !== search) history.replaceState(history.state, '', search + location.hash);
    }, URL_DELAY_MS);
  };
}

/** A function that reruns the softmax check of `metrics` when N or Bc of `state()` changed, after the frame that
 * shows the new settings: the check never holds a control back. */
function softmaxChecker(state, metrics) {
  let key = null;
  let scheduled = false;
  return () => {
    if (`${state().N}:${state().Bc}` === key || scheduled) return;
    scheduled = true;
    metrics.pending();
    requestAnimationFrame(() =>
      setTimeout(() => {
        scheduled = false;
        const { N, Bc } = state();
        key = `${N}:${Bc}`;
        metrics.updateSoftmax(softmaxCheck(N, Bc), N, Bc);
      }, 0),
    );
  };
}

/** Call `redraw(width)` when `figure`'s column changes width enough to change its layout (a phone turned sideways). */
function followWidth(figure, redraw) {
  let drawn = figure.clientWidth;
  new ResizeObserver(() => {
    if (Math.abs(figure.clientWidth - drawn) < 24) return;
    drawn = figure.clientWidth;
    redraw(drawn);
  }).observe(figure);
}
