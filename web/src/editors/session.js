// The page's editors and its Python, together: Run runs an editor and every one before it, in order, in one fresh
// namespace (the runner's); Run all runs them all. A Scene replaces the figure; what each editor printed appears
// under it; an error appears at its editor and line, and the figure stays as it was.
import { mountEditor } from './editor.js';
import { showScene } from './figure.js';
import { readPage } from './page.js';
import { Python } from './python.js';
import { loadLimit, saveLimit } from './store.js';

const STATUS = { loading: 'Python loading…', ready: 'Python ready', running: 'running…', failed: 'Python failed' };

/** Mount the editors of `doc` and start Python in `workerURL`. Returns the page's editor API (see below). */
export function startEditors(doc, workerURL) {
  const page = readPage(doc);
  let limitS = loadLimit();
  let busy = false;
  const actions = {
    run: (editor) => run(editor.index),
    runAll: () => run(editors.length - 1),
    stop: () => python.stop('stop'),
    setLimit(seconds) {
      limitS = seconds;
      saveLimit(seconds);
      for (const e of editors) e.chrome.setLimit(seconds);
    },
  };
  const editors = page.editors.map((spec) => mountEditor(page.name, spec, actions, limitS));
  const python = new Python(workerURL, (state, detail) => {
    const text = state === 'failed' ? `${STATUS.failed}: ${detail}` : STATUS[state];
    for (const e of editors) e.chrome.setStatus(text);
  });

  /** Run editors 0..last. Resolves to what happened: {ok, result?, stopped?, failed?, ms?, figureMs?}. */
  async function run(last) {
    if (busy || !editors.length) return { ok: false, failed: busy ? 'a run is already in progress' : 'no editors' };
    busy = true;
    const t0 = performance.now();
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
    const outcome = await python.run(sources, limitS);
    busy = false;
    for (const e of editors) e.chrome.setBusy(false);
    return { ...outcome, ...report(outcome, target, t0) };
  }

  function report(outcome, target, t0) {
    if (outcome.stopped) {
      const { reason, seconds } = outcome.stopped;
      const why = reason === 'limit' ? ` (the time limit is ${limitS} s)` : '';
      target.chrome.showMessage(`stopped after ${seconds.toFixed(1)} s${why}`, 'error');
      return { ok: false };
    }
    if (outcome.failed) {
      target.chrome.showMessage(`Python could not run: ${outcome.failed}`, 'error');
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
    const problem = showScene(result.scene);
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

  return {
    editors,
    python,
    /** Run editor `index` and every one before it. */
    run: (index) => run(index),
    runAll: () => run(editors.length - 1),
    stop: () => python.stop('stop'),
  };
}
