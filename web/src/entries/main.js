// The browser runtime of every page, in two parts. The figure's part runs as soon as the figure is parsed (the page
// loads this module async, after the figure and before the text): it takes over the figure drawn at build time in
// #kv-figure with the Scene of the build (#kv-scene: a file the head preloads, <link rel="preload" as="fetch"
// id="kv-scene">, or the Scene inline, <script type="application/json" id="kv-scene">), binds its player (Next,
// Play, the keys, the size form) and publishes its API (page/state.js), so the figure plays from the first paint. The text's
// part runs once the text has arrived (DOMContentLoaded): bullets and CUDA blocks bound to the steps (once the Scene
// is drawn), the copy buttons, a deep link's step scrolled to.
//
// The editors (editors.js, ~450 KB) are not fetched on a read-only visit: each editor is the page's highlighted
// <pre> (focusable, under a band as tall as the bar to come) until the reader reaches for one (focus or a pointer in
// an editor block, a size not drawn in advance, the API's editors()); then the bundle loads and replaces each <pre>
// with a CodeMirror editor of the same size, a step per quiet moment. A page whose editors hold the reader's edits
// (localStorage, editors/store.js) loads them at quiet moments without waiting, so the edits are shown and the
// figure says it was not drawn from them. A quiet moment is a task of its own when no step is animating and the
// browser is idle; once the reader has reached for an editor, every moment is. Python itself (Pyodide) is not
// fetched until the reader reaches for it: see editors/session.js.
//
// The API, published with page/state.js publishRuntime (the one place the bundles share; tests and benchmarks reach
// it as window.kernelviz):
//   setScene(scene) -> bool   check and draw (the error is shown in the canvas when false); a
//                             promise of it while the checker loads (scene-check.js, fetched
//                             for the first Scene not the page's own, and with the editors)
//   scene()                   the scene drawn now (with the reader's setting and point edits)
//   step() / goTo(k)          the current step / play step k (a promise: settled or not)
//   onStepChange(fn)          fn(k) on every step change; returns an unsubscribe function
//   quiet()                   a promise resolved in a new task at the next quiet moment
//   holdSteps(promise)        start no step's animation until `promise` settles (a task that
//                             cannot be split is coming: the step shows at once, moves after)
//   sizes()                   the sizes the figure shows ({N: 8, Br: 4, Bc: 4}; {} without a form)
//   chosenSizes()             the sizes the reader picked, which runs of the editors use, or null
//   ranAt(sizes, edited)      a run of the editors drew the figure at `sizes` (the editors call it)
//   editors()                 load the editors (as a reach does): a promise of their API
//                             (page/state.js editors(), see entries/editors.js), null without any
//
// The size form (form.kv-sizes) and the URL (#N=12&Br=4&Bc=4&step=7) re-draw the figure at other sizes: see
// figure/page/sizes.js.
//
// performance.mark('kv:runtime-start') marks this module starting, 'kv:figure-ready' the figure drawn and playable,
// 'kv:text-bound' the text's part done.
import '../figure/figure.css';
import '../figure/answers.css';
import '../page/layout.css';
import '../page/unseen.css';
import '../page/print.css';
import '../page/clipboard.css';
import { Figure } from '../figure/figure.js';
import { readHash } from '../figure/page/hash.js';
import { unpackScene } from '../figure/page/packed-scene.js';
import { Sizes } from '../figure/page/sizes.js';
import { valuesTable } from '../figure/page/answers-values.js';
import { wireSymbols } from '../figure/ui/symbols.js';
import { SizesForm } from '../figure/page/sizes-form.js';
import { keyboardBullets } from '../page/bullets.js';
import { focusableScrollers } from '../page/scrollables.js';
import { wireTheme } from '../page/theme.js';
import { wireCudaBlocks } from '../page/cuda-blocks.js';
import { wirePrint } from '../page/print.js';
import { wireCopyCode } from '../page/copy-code.js';
import { quietMoments, sleep } from '../lib/schedule.js';
import { pageName } from '../editors/page.js';
import { hasEdits } from '../editors/store.js';
import { editors, publishRuntime } from '../page/state.js';

/** A promise of [scene, null, built] from #kv-scene (its preloaded file, which the build wrote and checked: `built`
 * true; or inline, as a test's page has it: then settled in this task); [null, why] when the build's editors failed,
 * the file could not be fetched or the JSON is not JSON; [null, null] when the page has no Scene. A scene that is not
 * a Scene (e.g. `null`) is returned for setScene to refuse. */
async function pageScene() {
  const failure = document.getElementById('kv-scene-error');
  const source = document.getElementById('kv-scene');
  try {
    if (failure) return [null, String(JSON.parse(failure.textContent))];
    if (source?.localName === 'link') {
      const response = await fetch(source.href); // from the preload (its request is the same: CORS, same-origin)
      if (!response.ok) return [null, `the figure's scene ${source.getAttribute('href')}: HTTP ${response.status}`];
      return [unpackScene(await response.json()), null, true];
    }
    if (source) return [JSON.parse(source.textContent), null];
  } catch (e) {
    return [null, `the figure's scene could not be read: ${e.message}`];
  }
  return [null, null];
}

const CHECK_URL = new URL('./scene-check.js', import.meta.url).href;
let checking = null;
let pageFigure = null; // the page's Figure (start), null on a page without one

/** The Scene checker (scene-check.js: the schema's validator, most of the runtime's weight), imported once and given
 * to the page's figure: a promise of it. Not on a read-only visit: the page's own Scene was checked by it at build
 * time. */
function loadChecker() {
  checking ??= import(CHECK_URL).then(({ sceneProblem }) => {
    if (pageFigure) pageFigure.check = sceneProblem;
    return sceneProblem;
  });
  return checking;
}

function start() {
  performance.mark('kv:runtime-start');
  wireTheme();
  const host = document.getElementById('kv-figure');
  const figure = host ? new Figure(host) : null;
  pageFigure = figure;
  if (figure) figure.loadCheck = loadChecker;
  wirePrint(figure);
  const moments = quietMoments(figure);
  const started = startFigure(figure, moments);
  afterText(() => bindText(figure, moments, started));
}

/** Publish the runtime's API and draw `figure` (null: the page has none) from the page's Scene. Returns a promise,
 * settled once the Scene is drawn (or refused), of whether the URL named a step (a deep link, scrolled to once the
 * text is there). */
function startFigure(figure, moments) {
  let sizes = null;
  publishRuntime({
    setScene: (scene) => {
      if (!figure) return false;
      return figure.check ? figure.setScene(scene) : loadChecker().then(() => figure.setScene(scene));
    },
    scene: () => (figure ? figure.scene() : null),
    step: () => (figure ? figure.currentStep() : 0),
    goTo: (k) => (figure ? figure.goTo(k) : Promise.resolve(false)),
    onStepChange: (fn) => (figure ? figure.onStepChange(fn) : () => {}),
    quiet: moments.quiet,
    holdSteps: (promise) => figure?.holdStepsFor(promise),
    sizes: () => (sizes ? sizes.shown() : {}),
    chosenSizes: () => (sizes ? sizes.forRuns() : null),
    ranAt: (drawn, edited) => sizes?.ran(drawn, edited),
    editors: editorsAPI,
  });
  const draw = async ([scene, problem, built]) => {
    const drawn = !problem && figure && document.getElementById('kv-scene') && (await ownScene(figure, scene, built));
    if (problem) figure.showError(problem);
    sizes = drawn ? sizesOf(figure) : null;
    if (figure) figure.valuesOf = valuesTable(document, () => (sizes ? sizes.shown() : {}), () => figure.drawing?.steps?.map((s) => s.key));
    const follow = (state = readHash()) => {
      if (sizes) return sizes.follow(state); // other sizes are drawn first, then the step shown
      const k = state?.step ?? null;
      if (k !== null && k !== figure.currentStep()) figure.goTo(k);
    };
    const state = drawn ? readHash() : null; // (read first: showing a step writes the URL)
    if (drawn) {
      sizes?.hold(state); // (the URL keeps the sizes it names while the figure is drawn at them)
      if (state?.step != null) figure.show(state.step); // at the page's sizes at once, never a blank figure
      follow(state);
      addEventListener('hashchange', () => follow());
    }
    return state?.step != null;
  };
  const started = figure ? pageScene().then(draw) : Promise.resolve(false);
  Promise.all([started, figure?.ready]).then(() => performance.mark('kv:figure-ready'));
  return started;
}

/** Draw the page's own `scene`: whether it was drawn, or a promise of it. `built`: the build wrote and checked it,
 * so it is drawn unchecked, at once, unless it does not look like a Scene (a file changed since) or the renderer
 * chokes on it: then, as a scene not `built`, it is drawn once the checker has come, which shows what is wrong. */
function ownScene(figure, scene, built) {
  const looks = built && scene && typeof scene === 'object' && Array.isArray(scene.nodes) && scene.canvas;
  try {
    if (looks) return figure.setScene(scene, true, null);
  } catch (e) {
    console.warn('kernelviz: the page\'s Scene could not be drawn unchecked', e);
  }
  return loadChecker().then(() => figure.setScene(scene, true));
}

/** The editors' API (page/state.js editors()), once the text, where the editors are, has come and their bundle has
 * loaded (loading it, as a reach does); null on a page without editors. */
const editorsAPI = () => afterText().then(() => loadEditors()).then((module) => module?.editors ?? null);

/** `then` once the text has arrived (the document parsed); a promise of that either way. */
function afterText(then = () => {}) {
  if (document.readyState !== 'loading') return Promise.resolve().then(then);
  return new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true })).then(then);
}

/** The text's part: bullets and CUDA blocks bound to `figure`'s steps once its Scene is drawn (the step shown
 * marked), then, once the figure is ready, a deep link's step (`started` resolves to whether there is one)
 * scrolled to, and at a quiet moment what reads the whole page's layout. */
function bindText(figure, moments, started) {
  wireCudaBlocks();
  keyboardBullets();
  // once the Scene is drawn (its steps are what the text binds to: bound before, every bullet would show as gone)
  started.then(() => {
    figure?.bindText();
    const text = document.getElementById('kv-text');
    if (figure && text) wireSymbols(text, figure.hover);
    performance.mark('kv:text-bound');
  });
  Promise.all([started, figure?.ready]).then(([linked]) => {
    if (linked) showLinkedStep();
    // Both read or change the layout of the whole page (a long task on a long page): at a quiet moment, never while
    // a step played at once after load animates. The copy buttons' room is kept by the stylesheet.
    const settle = () => {
      focusableScrollers();
      wireCopyCode();
    };
    if (figure) moments.quiet().then(settle);
    else settle();
    loadEditorsOnReach(moments, figure);
  });
}

/**
 * Scroll a deep link's step (its first element marked current in the prose) into view, once the page is laid out:
 * below the docked figure on a narrow screen (its scroll-margin-top), mid-screen beside the figure on a wide one.
 */
function showLinkedStep() {
  const current = document.querySelector('.kv-prose .kv-current');
  const narrow = matchMedia('(max-width: 900px)').matches;
  current?.scrollIntoView({ block: narrow ? 'start' : 'center', behavior: 'instant' });
}

/** The page's size form bound to `figure` (null: the page has none). */
function sizesOf(figure) {
  const form = document.querySelector('form.kv-sizes');
  if (!form) return null;
  let sizes = null;
  const python = {
    loaded: editors,
    start: editorsAPI,
  };
  sizes = new Sizes(new SizesForm(form, (wanted) => sizes.request(wanted)), figure, python);
  return sizes;
}

const EDITORS_URL = new URL('./editors.js', import.meta.url).href;
const HOLD_MAX_MS = 1000; // the longest the editors' evaluation holds the figure's steps back, whatever happens
let editorsLoading = null;

/**
 * Import the editors bundle (once); a promise of its module, or of null when the page has no editors or it failed.
 * `figure` is given once the bundle is fetched, when the import is its evaluation: one long task, a task or more
 * after import() (so after the quiet moment that called it), which holds back the figure's step animations so that
 * it cuts into none.
 */
function loadEditors(figure = null) {
  if (!document.querySelector('.kv-editor')) return Promise.resolve(null);
  if (!editorsLoading) {
    // with the scene checker: the Scenes the editors draw are checked (the bundle's evaluation waits for it)
    const checked = pageFigure ? loadChecker() : null;
    editorsLoading = Promise.all([import(EDITORS_URL), checked])
      .then(([module]) => module)
      .catch((e) => {
        console.warn('kernelviz: the editors could not be loaded', e);
        return null;
      });
    if (figure) {
      const atMost = sleep(HOLD_MAX_MS);
      figure.holdStepsFor(Promise.race([editorsLoading, atMost]));
    }
  }
  return editorsLoading;
}

/** Load the editors bundle when the reader reaches for an editor (see the top of this file); on a page whose editors
 * hold the reader's edits, at quiet moments from now: fetched and compiled (modulepreload), then run at a quiet
 * moment, holding back the figure's steps while it evaluates. */
function loadEditorsOnReach({ quiet, reached }, figure) {
  if (!document.querySelector('.kv-editor')) return;
  const load = () => loadEditors();
  reached.then(load);
  // A pointer in an editor block is a reach for Python too; the editors start it once they run, but one that
  // came before them would be missed: say it here.
  const pointer = (e) => {
    if (!e.target.closest?.('.kv-editor')) return;
    document.removeEventListener('pointerdown', pointer);
    load().then((module) => module?.wantPython?.());
  };
  document.addEventListener('pointerdown', pointer);
  const indices = [...document.querySelectorAll('.kv-editor')].map((e, i) => Number(e.dataset.editor ?? i));
  if (!hasEdits(pageName(document), indices)) return;
  let preloaded = false;
  const fetched = new Promise((resolve) => {
    const link = Object.assign(document.createElement('link'), { rel: 'modulepreload', href: EDITORS_URL });
    link.onload = () => resolve((preloaded = true));
    link.onerror = resolve; // a failed fetch is the import's to report (it fetches again: no steps held for that)
    document.head.append(link);
  });
  quiet()
    .then(() => fetched)
    .then(quiet)
    .then(() => loadEditors(preloaded ? figure : null));
}

start();
