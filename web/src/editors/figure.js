// The figure, through the runtime's API on window.kernelviz (web/src/entries/main.js): a new Scene replaces it and
// its step list, and the runtime keeps the current step when it still exists.

/** Show `scene`. Returns null, or why the figure did not change. */
export function showScene(scene) {
  const runtime = window.kernelviz;
  if (!runtime || typeof runtime.setScene !== 'function') return 'the figure runtime is not loaded on this page';
  if (!document.getElementById('kv-figure')) return 'the code ran; this page has no figure to draw it in';
  return runtime.setScene(scene) ? null : 'the new Scene is not valid: the canvas shows why';
}

/** The scene the figure shows now (null when there is no figure runtime or no scene). */
export function currentScene() {
  return window.kernelviz?.scene?.() ?? null;
}

/** The sizes the figure shows now ({N: 8, ...}; {} on a page without a size form). */
export function currentSizes() {
  return window.kernelviz?.sizes?.() ?? {};
}

/** The sizes the figure's size form asks the kernel to draw at ({N: 12, ...}), or null: the kernel's own. */
export function chosenSizes() {
  return window.kernelviz?.chosenSizes?.() ?? null;
}

/** Tell the figure the sizes a run drew at (the RunResult's sizes) and whether it ran code the reader edited. */
export function ranAt(sizes, edited) {
  window.kernelviz?.ranAt?.(sizes, edited);
}
