// The figure, through the runtime's API (page/state.js, the one place the bundles share): a new Scene replaces it and
// its step list, and the runtime keeps the current step when it still exists.
import * as state from '../page/state.js';

/** Show `scene`. Returns null, or why the figure did not change. */
export function showScene(scene) {
  if (!state.canDraw()) return 'the figure runtime is not loaded on this page';
  if (!document.getElementById('kv-figure')) return 'the code ran; this page has no figure to draw it in';
  return state.setScene(scene) ? null : 'the new Scene is not valid: the canvas shows why';
}

/** The scene the figure shows now (null when there is no figure runtime or no scene). */
export const currentScene = () => state.scene();

/** The sizes the figure shows now ({N: 8, ...}; {} on a page without a size form). */
export const currentSizes = () => state.sizes();

/** The sizes the figure's size form asks the kernel to draw at ({N: 12, ...}), or null: the kernel's own. */
export const chosenSizes = () => state.chosenSizes();

/** Tell the figure the sizes a run drew at (the RunResult's sizes) and whether it ran code the reader edited. */
export function ranAt(sizes, edited) {
  state.ranAt(sizes, edited);
}
