// The page's state the bundles share, through one module. The bundles are self-contained (web/build.mjs: no shared
// chunks), so each bundle that imports this module runs its own copy of this code; what they share lives in one
// place on the page, written here and nowhere else: the global object's two slots
//   kernelviz          the figure runtime's API, published by entries/main.js (publishRuntime; its members are listed
//                      there: setScene, scene, step, goTo, onStepChange, quiet, holdSteps, sizes, chosenSizes, ranAt,
//                      editors)
//   kernelvizEditors   the editors' API once every editor is mounted, published by entries/editors.js
//                      (publishEditors: {editors, python, run(index), runAll(), stop()})
// Every other module asks through the functions below; the two slots are also the handle tests and benchmarks reach
// through page.evaluate (window.kernelviz.goTo(3)). tests/test_web_page_state.py holds that no other file of web/src
// names them.
import { nextTask } from '../lib/schedule.js';

const RUNTIME = 'kernelviz';
const EDITORS = 'kernelvizEditors';

/** Publish the figure runtime's API (entries/main.js, once per page). */
export function publishRuntime(api) {
  globalThis[RUNTIME] = api;
}

/** Publish the editors' API (entries/editors.js, once every editor is mounted); returns it. */
export function publishEditors(api) {
  globalThis[EDITORS] = api;
  return api;
}

/** The figure runtime's API, or null on a page without the runtime. */
export const runtime = () => globalThis[RUNTIME] ?? null;

/** The editors' API once mounted, or null. */
export const editors = () => globalThis[EDITORS] ?? null;

/** Whether the figure runtime is here to draw a Scene. */
export const canDraw = () => typeof runtime()?.setScene === 'function';

/** Check and draw `scene` (the runtime's setScene: a bool, or a promise of it while the checker loads). */
export const setScene = (scene) => runtime().setScene(scene);

/** The scene the figure shows now, or null. */
export const scene = () => runtime()?.scene?.() ?? null;

/** The sizes the figure shows ({N: 8, ...}; {} without a size form or a runtime). */
export const sizes = () => runtime()?.sizes?.() ?? {};

/** The sizes the reader picked in the size form, which runs of the editors use, or null. */
export const chosenSizes = () => runtime()?.chosenSizes?.() ?? null;

/** Tell the figure a run of the editors drew it at `drawn` sizes, from code the reader `edited` or not. */
export const ranAt = (drawn, edited) => runtime()?.ranAt?.(drawn, edited);

/** A promise resolved in a new task at the page's next quiet moment (the runtime's; without it, the next task). */
export const quiet = () => (runtime()?.quiet ?? nextTask)();
