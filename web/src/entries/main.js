// The browser runtime of every page: draws the figure from the Scene embedded at build time (#kv-scene) into
// #kv-figure, exposes window.kernelviz, and loads the editors (editors.js) once the figure is drawn and the
// browser is idle with no step animating (starting them costs the main thread frames), or at once when the reader
// reaches for an editor.
//
//   window.kernelviz.setScene(scene) -> bool   check and draw (the error is shown in the canvas when false)
//   window.kernelviz.scene()                   the scene drawn now (with the reader's setting and point edits)
//   window.kernelviz.step() / goTo(k)          the current step / play step k (a promise: settled or not)
//   window.kernelviz.onStepChange(fn)          fn(k) on every step change; returns an unsubscribe function
//
// performance.mark('kv:runtime-start') marks this module starting, 'kv:figure-ready' the figure drawn and playable.
import '../figure/figure.css';
import { Figure } from '../figure/figure.js';
import { stepFromHash } from '../figure/page/hash.js';

function embeddedScene() {
  const script = document.getElementById('kv-scene');
  if (!script) return null;
  try {
    return JSON.parse(script.textContent);
  } catch (e) {
    return { invalidJson: `the scene embedded in the page is not valid JSON: ${e.message}` };
  }
}

function start() {
  performance.mark('kv:runtime-start');
  const host = document.getElementById('kv-figure');
  const figure = host ? new Figure(host) : null;
  window.kernelviz = {
    setScene: (scene) => (figure ? figure.setScene(scene) : false),
    scene: () => (figure ? figure.scene() : null),
    step: () => (figure ? figure.currentStep() : 0),
    goTo: (k) => (figure ? figure.goTo(k) : Promise.resolve(false)),
    onStepChange: (fn) => (figure ? figure.onStepChange(fn) : () => {}),
  };
  const scene = figure && embeddedScene();
  if (scene && scene.invalidJson) figure.showError(scene.invalidJson);
  else if (scene && figure.setScene(scene, true)) {
    const k = stepFromHash();
    if (k !== null) figure.show(k);
  }
  addEventListener('hashchange', () => {
    const k = stepFromHash();
    if (figure && k !== null && k !== figure.currentStep()) figure.goTo(k);
  });
  (figure ? figure.ready : Promise.resolve()).then(() => {
    performance.mark('kv:figure-ready');
    loadEditorsLater(figure);
  });
}

function loadEditorsLater(figure) {
  if (!document.querySelector('.kv-editor')) return;
  let loading = null;
  const load = () => {
    loading ||= import(new URL('./editors.js', import.meta.url).href).catch((e) => {
      console.warn('kernelviz: the editors could not be loaded', e);
    });
    return loading;
  };
  const reach = (e) => {
    if (e.target.closest?.('.kv-editor')) load();
  };
  document.addEventListener('focusin', reach);
  document.addEventListener('pointerdown', reach);
  const idle = (fn) => ('requestIdleCallback' in window ? requestIdleCallback(fn, { timeout: 3000 }) : setTimeout(fn, 1000));
  const whenStill = () => (figure ? figure.still() : Promise.resolve());
  const tryLoad = () => whenStill().then(() => idle(() => (figure?.player?.animating ? tryLoad() : load())));
  tryLoad();
}

start();
