// The figure of a page: a Scene drawn into the page's <aside class="kv-figure">, with its step list (and scrubber),
// settings panel, keys, URL and page bindings, its answers (ui/hover.js: what a slot holds, by pointer, tap or
// keyboard) and the reader's zoom (ui/zoom.js). `setScene` checks a Scene and redraws, keeping the current step when the new
// scene still has it; a scene that cannot be drawn shows why in the canvas instead of any part of a figure.
// The first step list drives the player; it plays on the diagram it names (other diagrams show their items).
// A page built with its figure drawn (<div class="kv-canvas"><svg data-prerendered>, kernelviz/site/figure_svg.py)
// is taken over, not drawn again: the first scene set adopts its elements, then the marker goes. The controls drawn
// with it (the settings panel, the dock's step list) are replaced in place by live ones of the same size.
// The checker (check.js: the schema's validator, most of the runtime's weight) is not part of this module: the page
// gives it (`check`) once it has loaded it (entries/scene-check.js), and the page's own Scene, checked by the same
// checker at build time, is drawn without it.
import { Bindings } from './page/bindings.js';
import { writeHash } from './page/hash.js';
import { Player } from './player.js';
import { Drawing } from './render/drawing.js';
import { draggable } from './render/shapes.js';
import { adopting } from '../lib/svg.js';
import { StepHolds } from '../lib/schedule.js';
import { Timeline } from './timeline.js';
import { DURATION_MS } from './tween.js';
import { h } from '../lib/dom.js';
import { FigureTools } from './ui/figure-tools.js';
import { Fold } from './ui/fold.js';
import { Follow } from './ui/follow.js';
import { bindKeys } from './ui/keys.js';
import { SettingsPanel } from './ui/settings-panel.js';
import { StepList } from './ui/step-list.js';
import { Hover } from './ui/hover.js';
import { Zoom, zoomButtons } from './ui/zoom.js';
import { isRef, nodesById, num } from './values.js';

const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;
const FALLBACK_SIZE = [480, 480];
let figures = 0;

export class Figure {
  constructor(host) {
    this.host = host;
    this.gridId = `kv-grid-${++figures}`;
    this.prerendered = host.querySelector(':scope > .kv-canvas > svg[data-prerendered]');
    this.box = this.prerendered?.parentNode ?? h('div', { class: 'kv-canvas' });
    // The dock drawn at build time stays in its place, emptied: the live step list fills it in the same task (the
    // first scene is set before the browser renders again), so nothing moves.
    this.dock = host.querySelector(':scope > .kv-dock[data-prerendered]') ?? h('div', { class: 'kv-dock' });
    this.dock.replaceChildren();
    this.dock.removeAttribute('data-prerendered');
    for (const part of [this.box, this.dock]) if (part.parentNode !== host) host.append(part); // (drawn ones stay put)
    this.settingsPanel = new SettingsPanel(host, (name, value) => this.setSetting(name, value));
    this.listeners = [];
    this.check = undefined; // the scene checker, once the page has loaded it (see setScene)
    this.loadCheck = async () => this.check; // the page's loader of it, a promise of it (main.js gives its own)
    this.stillWaiters = [];
    this.holds = new StepHolds(); // while the page runs a task it cannot split: see holdStepsFor
    this.model = null;
    this.step = 0;
    this.announced = false; // whether the page has moved off its first step yet (then the URL follows)
    this.urlSizes = () => null; // the sizes the URL carries with the step (set by the page's size form)
    this.follow = new Follow(); // whether stepping scrolls the text to the step's bullet
    this.fold = new Fold(host, this.box, () => this.stepList?.floating() && this.stepList.dockAgain()); // (phones)
    this.bindings = new Bindings(document, (k) => {
      this.follow.fromBullet();
      this.goTo(k);
    });
    this.valuesOf = () => undefined; // (step, slot name) -> its values at the page's sizes: set by the page
    this.hover = new Hover(this.box, {
      svg: () => this.canvas?.svg,
      step: () => this.currentStep(),
      values: (k, name) => this.valuesOf(k, name),
    });
    this.zoom = new Zoom(this.box, () => {
      if (!this.canvas) return;
      this.redraw();
      this.hover.refresh();
    });
    bindKeys(() => this.player, () => this.stepList);
    // The canvas size comes from a ResizeObserver, which reports after the browser's own layout: reading it
    // ourselves would force a layout of the whole page before the figure could be drawn.
    this.size = null;
    this.sizeFor = null; // the size of a canvas on paper, while the page prints (layoutFor)
    this.ready = new Promise((resolve) => {
      this.whenSized = resolve;
      setTimeout(resolve, 1000); // a figure that is not rendered (display: none) is never sized
    });
    new ResizeObserver(([entry]) => {
      const { width, height } = entry.contentRect;
      this.size = width > 0 && height > 0 ? [width, height] : null;
      this.layout();
      this.whenSized();
    }).observe(this.box);
  }

  /** Check and draw `scene` (with `check`, a scene -> null or why: check.js's sceneProblem, by default the one the
   * page gave the figure as `this.check`; null: the scene was checked at build time); false (and the reason shown
   * in the canvas) when it cannot be drawn. The figure works on a copy, unless `owned` says the scene is the
   * figure's to change (the one parsed from the page). */
  setScene(scene, owned = false, check = this.check) {
    if (check === undefined) throw new Error('kernelviz: no scene checker loaded to check this scene with');
    let problem;
    try {
      problem = check ? check(scene) : null;
    } catch (e) {
      problem = `the scene could not be checked: ${e.message}`;
    }
    if (problem) {
      this.showError(problem);
      return false;
    }
    const key = this.stepList?.steps[this.step]?.key; // the step shown now, by meaning: kept if the new scene has it
    this.teardown();
    this.model = owned ? scene : structuredClone(scene);
    this.byId = nodesById(this.model);
    const main = this.host.closest('.kv-page');
    if (main) main.dataset.canvasSide = this.model.canvas.side || '';
    const draw = () => {
      this.build(key);
      this.fitView();
      this.redraw();
    };
    const svg = this.prerendered;
    this.prerendered = null;
    if (svg && svg.isConnected) {
      adopting(svg, draw);
      svg.removeAttribute('data-prerendered');
    } else {
      svg?.remove();
      draw();
    }
    return true;
  }

  /** Views of the model's nodes and, for its first step list, the player, starting on the first step with `key`
   * (else on the step shown before, or the last). */
  build(key) {
    const drag = (target, id) =>
      draggable(
        target,
        (x, y) => this.movePoint(id, this.canvas.toCanvas(x, y, this.settings().unit)),
        (dx, dy) => this.movePoint(id, [num(this.byId.get(id).x, this.byId) + dx, num(this.byId.get(id).y, this.byId) + dy]),
      );
    this.drawing = new Drawing(this.box, this.gridId, this.model, this.byId, drag);
    this.canvas = this.drawing.canvas;
    this.bound = this.drawing.bound;
    const { steps } = this.drawing;
    this.bindings.refresh(steps || []);
    if (!steps) return;
    const timeline = new Timeline(this.bound.items, steps);
    const same = key === undefined ? -1 : steps.findIndex((step) => step.key === key);
    if (same >= 0) this.step = same;
    this.player = new Player(timeline, (items) => this.drawBound(items), {
      duration: () => Number(this.host.dataset.duration) || DURATION_MS,
      reducedMotion,
      busy: () => this.holds.held(),
    });
    this.player.current = Math.min(this.step, timeline.last);
    this.bound.items = timeline.state(this.player.current);
    this.player.shown = this.bound.items;
    this.stepList = new StepList(this.player, steps, this.box, this.dock);
    this.tools = new FigureTools(
      this.stepList.bar,
      { svg: () => this.canvas.svg, step: () => this.currentStep(), sizes: () => this.urlSizes() },
      this.follow,
    );
    this.fold.place(this.stepList.bar);
    const row = this.stepList.scrubber.root;
    if (!row.querySelector('.kv-zoom')) row.append(...zoomButtons());
    this.zoom.bind(row, this.canvas.svg);
    this.hover.attach(this.canvas.svg);
    this.player.on('step', (k) => this.stepChanged(k));
    this.player.on('animating', (on) => {
      this.host.dataset.animating = on ? 'true' : 'false';
      if (!on) this.hover.refresh();
      if (!on) this.stillWaiters.splice(0).forEach((resolve) => resolve());
    });
    this.host.dataset.animating = 'false';
    this.stepChanged(this.player.current, false);
  }

  stepChanged(k, byUser = true) {
    this.step = k;
    this.host.dataset.currentStep = String(k);
    queueMicrotask(() => this.hover.refresh()); // (once the step is drawn)
    if (byUser) this.announced = true;
    if (this.announced) writeHash(k, this.urlSizes());
    this.bindings.mark(k, byUser && this.follow.on); // the text moves only for a reader who follows the steps
    if (byUser) for (const fn of this.listeners) fn(k);
  }

  /** The text has arrived (the figure may be drawn before it): bind its bullets and CUDA blocks to the steps shown
   * now, and mark the current step's. */
  bindText() {
    this.bindings.refresh(this.drawing?.steps || []);
    this.bindings.mark(this.step, false);
  }

  drawBound(items) {
    this.drawing.drawBound(items);
  }

  settings() {
    return this.drawing.settings();
  }

  /** The canvas's size changed: fit the drawing to it again and redraw. */
  layout() {
    if (!this.canvas) return;
    this.fitView();
    this.redraw();
  }

  /** Lay the figure out for a canvas of `size` ([width, height] px) instead of its own, at the step it shows, until
   * called with null: for a print, which lays the page out on paper with no resize the figure could see. */
  layoutFor(size) {
    this.sizeFor = size;
    this.layout();
  }

  /** Fit the drawing, at every step, to the canvas (fit.js): after a new scene or size, not after a setting, so
   * that the reader's unit and origin still zoom and move it. */
  fitView() {
    this.drawing.fit(...(this.sizeFor || this.size || FALLBACK_SIZE));
  }

  /** Lay out the canvas and draw every node from the model (after a setting or a point changed). */
  redraw() {
    const lens = this.sizeFor ? null : this.zoom.lens(); // (a print shows the whole figure)
    this.settingsPanel.show(this.drawing.redraw(...(this.sizeFor || this.size || FALLBACK_SIZE), lens));
  }

  /** Set a canvas setting: the scalar node it refers to, or its literal. */
  setSetting(name, value) {
    if (!this.model) return;
    const current = this.model.settings[name];
    if (isRef(current)) this.byId.get(current.ref).value = value;
    else this.model.settings[name] = value;
    this.redraw();
  }

  movePoint(id, [x, y]) {
    const point = this.byId.get(id);
    const round = (v) => Math.round(v * 1000) / 1000;
    for (const [field, v] of [['x', x], ['y', y]]) {
      if (isRef(point[field])) this.byId.get(point[field].ref).value = round(v);
      else point[field] = round(v);
    }
    this.redraw();
  }

  goTo(k) {
    return this.player ? this.player.goTo(k) : Promise.resolve(false);
  }

  /** Write the step and the sizes in the URL now (after the reader picked sizes). */
  announce() {
    this.announced = true;
    writeHash(this.currentStep(), this.urlSizes());
  }

  /** Show step k at once, without animation (a deep link). */
  show(k) {
    if (!this.player) return;
    this.player.pause();
    this.player.reach(k, { animate: false });
  }

  scene() {
    return this.model ? structuredClone(this.model) : null;
  }

  currentStep() {
    return this.player ? this.player.current : 0;
  }

  /** Start no step's animation until `promise` settles, fulfilled or not (and any hold before it): the page is
   * running a task it cannot split. The step is still shown at once; its movement waits. */
  holdStepsFor(promise) {
    this.holds.hold(promise);
  }

  /** A promise resolved once no step is animating. */
  still() {
    if (!this.player?.animating) return Promise.resolve();
    return new Promise((resolve) => this.stillWaiters.push(resolve));
  }

  onStepChange(fn) {
    this.listeners.push(fn);
    return () => {
      this.listeners = this.listeners.filter((f) => f !== fn);
    };
  }

  teardown() {
    this.player?.destroy();
    this.stillWaiters.splice(0).forEach((resolve) => resolve());
    this.stepList?.remove();
    this.drawing?.remove();
    this.errorBox?.remove();
    this.player = this.stepList = this.drawing = this.canvas = this.errorBox = this.bound = null;
    this.host.classList.remove('kv-has-error');
    this.settingsPanel.root.hidden = false;
  }

  showError(message) {
    this.teardown();
    this.host.classList.add('kv-has-error');
    this.settingsPanel.root.hidden = true; // nothing to set
    this.errorBox = h('div', { class: 'kv-error', role: 'alert' }, h('strong', {}, 'The figure cannot be drawn'), h('p', {}, message));
    this.box.append(this.errorBox);
  }
}
