// The page's editors and its Python, together: Run runs an editor and every one before it, in order, in one fresh
// namespace (the runner's); Run all runs them all. A Scene replaces the figure; what each editor printed appears
// under it; an error appears at its editor and line, and the figure stays as it was.
//
// Python is fetched only when the reader reaches for it: a pointer down in an editor block, an edit (not one that
// changes only whitespace: Tab indents, and a keyboard reader passing through presses it), Run or Run all (a run
// waits for Python to load), or the API (python.start(), run, runAll; the size form uses runAll).
// Focusing an editor from the keyboard does not: a reader tabbing through the page passes every editor, and 14 MB
// is not a price for passing by; the status line says what loads it and how much it weighs. While it loads, every
// editor's status line shows a progress bar in MB.
import { mountEditor } from './editor.js';
import { chosenSizes, ranAt } from './figure.js';
import { readPage } from './page.js';
import { Provenance } from './provenance.js';
import { loadLimit, saveLimit } from './store.js';

/* global __PYODIDE_FILES__ */
const MB = 1e6;
const PYODIDE_BYTES = Object.values(__PYODIDE_FILES__).reduce((a, b) => a + b, 0);
const mb = (bytes) => (bytes / MB).toFixed(1);

/** The status line for Python's `state` and its `detail` (python.js). */
function statusOf(state, detail) {
  if (state === 'idle') return { text: `Python: loads on Run or edit (${mb(PYODIDE_BYTES)} MB)` };
  if (state === 'loading') {
    const total = detail?.total || PYODIDE_BYTES;
    const loaded = Math.min(detail?.loaded || 0, total);
    return { text: `Python: ${mb(loaded)} / ${mb(total)} MB`, progress: { loaded, total } };
  }
  if (state === 'ready') return { text: 'Python ready' };
  if (state === 'running') return { text: 'running…' };
  return { text: `Python failed: ${detail}; Run tries again`, failed: true };
}

/**
 * Mount the editors of `doc`, with `python` (a Python, python.js, not started: it starts on the reader's intent,
 * see above), a step at a time, so that no step holds the main thread for long: each step of mounting each editor
 * (see editor.js) in a task of its own once `quiet()` resolves (a promise; by default the next task). Resolves to
 * the page's editor API (see below) once every editor is mounted; a Run pressed before then waits for that.
 */
export async function startEditors(doc, python, quiet = nextTask) {
  const page = readPage(doc);
  let limitS = loadLimit();
  let busy = false;
  let status = statusOf(python.state, python.state === 'loading' ? python.progress : null);
  const editors = [];
  const provenance = new Provenance(doc, () => run(null));
  const show = (editor) => editor.chrome.setStatus(status.text, status.progress, status.failed);
  python.onState = (state, detail) => {
    status = statusOf(state, detail);
    for (const e of editors) show(e);
  };
  doc.addEventListener('pointerdown', (e) => {
    if (e.target.closest?.('.kv-editor')) python.start();
  });
  const actions = {
    run: (editor) => run(editor.index),
    runAll: () => run(null),
    changed({ byReset, whitespace }) {
      if (!byReset && !whitespace) python.start(); // an edit: the reader means to run it (an indent alone does not)
      if (byReset) provenance.reset(editors);
      else provenance.show(editors);
    },
    stop: () => python.stop('stop'),
    setLimit(seconds) {
      limitS = seconds;
      saveLimit(seconds);
      for (const e of editors) e.chrome.setLimit(seconds);
    },
  };
  const started = (async () => {
    for (const spec of page.editors) {
      await quiet();
      const editor = await mountEditor(page.name, spec, actions, limitS, quiet);
      editor.chrome.setLimit(limitS); // the reader may have changed it while this editor mounted
      show(editor);
      editors.push(editor);
      provenance.show(editors);
      performance.mark('kv:editor-mounted', { detail: { index: spec.index } });
    }
  })();

  /** Run editors 0..last (null: all) at `sizes` (the size form's, unless given). Resolves to what happened: {ok,
   * result?, stopped?, failed?, ms?, figureMs?}. */
  async function run(last, sizes = chosenSizes()) {
    if (busy) return { ok: false, failed: 'a run is already in progress' };
    busy = true;
    const t0 = performance.now();
    python.start(); // loading while the editors finish mounting, if they have not
    await started;
    if (!editors.length) {
      busy = false;
      return { ok: false, failed: 'no editors' };
    }
    last = Math.min(last ?? editors.length - 1, editors.length - 1);
    performance.mark('kv:run-start');
    const target = editors[last];
    for (const e of editors) {
      e.clearRun();
      e.chrome.setBusy(true);
    }
    target.chrome.showMessage(python.state === 'loading' ? 'waiting for Python to load…' : 'running…');
    const sources = editors.slice(0, last + 1).map((e) => ({
      code: e.code(),
      name: e.title || `editor ${e.index + 1}`,
      first_line: e.firstLine,
    }));
    const outcome = await python.run(sources, limitS, sizes);
    busy = false;
    for (const e of editors) e.chrome.setBusy(false);
    const reported = report(outcome, last, t0);
    if (reported.ok) ranAt(outcome.result.sizes, sources.some((s, i) => s.code !== page.editors[i].code));
    return { ...outcome, ...reported };
  }

  function report(outcome, last, t0) {
    const target = editors[last];
    if (outcome.stopped) {
      const { reason, seconds } = outcome.stopped;
      const why = reason === 'limit' ? ` (the time limit is ${limitS} s)` : '';
      target.chrome.showMessage(`stopped after ${seconds.toFixed(1)} s${why}`, 'error');
      return { ok: false };
    }
    if (outcome.failed) {
      target.chrome.showMessage(`Python could not run: ${outcome.failed}. Your code is kept; Run tries again.`, 'error');
      return { ok: false };
    }
    const { result } = outcome;
    result.outputs.forEach((text, i) => editors[i].chrome.showStdout(text));
    if (result.stderr) {
      const shown = editors[result.outputs.length - 1] ?? target;
      shown.chrome.showStdout([result.outputs.at(-1), result.stderr].filter(Boolean).join('\n'));
    }
    if (result.error) {
      const { editor, line, kind, message, traceback } = result.error;
      (editors[editor] ?? target).showError(line, `${kind}: ${message}`, traceback);
      return { ok: false };
    }
    const problem = provenance.draw(result.scene, editors, last);
    const figureMs = performance.now() - t0;
    performance.mark('kv:figure-updated');
    if (problem) {
      target.chrome.showMessage(problem, 'error');
      return { ok: false, figureMs };
    }
    const n = result.outputs.length;
    target.chrome.showMessage(`ran ${n === 1 ? 'this editor' : `${n} editors`} in ${Math.round(outcome.ms)} ms`);
    return { ok: true, figureMs };
  }

  await started;
  return {
    editors,
    python,
    /** Run editor `index` and every one before it (options: {sizes}, else the size form's). */
    run: (index, options) => run(index, options?.sizes),
    runAll: (options) => run(null, options?.sizes),
    stop: () => python.stop('stop'),
  };
}

/** A promise resolved in the next task: quiet() where there is no runtime to say when the page is quiet. */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
