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
import { currentStage, stagesLine } from './stages.js';
import { loadLimit, saveLimit } from './store.js';
import { nextTask } from '../lib/schedule.js';

/* global __PYODIDE_FILES__ */
const MB = 1e6;
const PYODIDE_BYTES = Object.values(__PYODIDE_FILES__).reduce((a, b) => a + b, 0);
const mb = (bytes) => (bytes / MB).toFixed(1);

/** The status line for `python` (python.js) at `now`: {text, progress?, failed?, elapsed?} (elapsed: ms, shown
 * beside the text while Python starts or runs). While it loads, the stage it is in (stages.js), with a bar in MB
 * while it downloads. */
function statusOf(python, now) {
  const { state } = python;
  if (state === 'idle') return { text: `Python: loads on Run or edit (${mb(PYODIDE_BYTES)} MB)` };
  const stage = currentStage(python.timeline, now);
  if (state === 'loading') {
    const elapsed = stage?.total;
    if (stage && stage.stage !== 'download') return { text: `Python: ${stage.label}`, elapsed };
    const total = python.progress?.total || PYODIDE_BYTES;
    const loaded = Math.min(python.progress?.loaded || 0, total);
    return { text: `Python: downloading ${mb(loaded)} / ${mb(total)} MB`, progress: { loaded, total }, elapsed };
  }
  if (state === 'ready') return { text: 'Python ready' };
  if (state === 'running') return { text: 'running', elapsed: stage?.stage === 'run' ? stage.elapsed : undefined };
  return { text: `Python failed: ${python.failure}; Run tries again`, failed: true };
}

const TICK_MS = 200; // how often the elapsed times are shown anew while Python starts or runs

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
  const editors = [];
  const provenance = new Provenance(doc, () => run(null));
  let runTarget = null; // the editor whose Run is in progress: its message says the stages
  const status = statusLine(python, editors, () => (busy ? runTarget : null));
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
  const started = mountAll(page, editors, { actions, limit: () => limitS, status, provenance, quiet });

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
    const target = (runTarget = editors[last]);
    for (const e of editors) {
      e.clearRun();
      e.chrome.setBusy(true);
    }
    const sources = editors.slice(0, last + 1).map((e) => ({
      code: e.code(),
      name: e.title || `editor ${e.index + 1}`,
      first_line: e.firstLine,
    }));
    const running = python.run(sources, limitS, sizes);
    status.tell(target); // (after run(): a Python started already shows the run's stage alone)
    const outcome = await running;
    busy = false;
    for (const e of editors) e.chrome.setBusy(false);
    const reported = report(outcome, { editors, last, limitS, provenance, t0 });
    if (reported.ok) ranAt(outcome.result.sizes, sources.some((s, i) => s.code !== page.editors[i].code));
    return { ...outcome, ...reported };
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

/** Mount `page`'s editors into `editors` one at a time, each step in a task of its own once `quiet()` resolves. */
async function mountAll(page, editors, { actions, limit, status, provenance, quiet }) {
  for (const spec of page.editors) {
    await quiet();
    const editor = await mountEditor(page.name, spec, actions, limit(), quiet);
    editor.chrome.setLimit(limit()); // the reader may have changed it while this editor mounted
    status.show(editor);
    editors.push(editor);
    provenance.show(editors);
    performance.mark('kv:editor-mounted', { detail: { index: spec.index } });
  }
}

/** Say under the editors what a run of editors 0..`last` came to (`outcome`: python.run's), draw its Scene through
 * `provenance`, and answer {ok, figureMs?}. */
function report(outcome, { editors, last, limitS, provenance, t0 }) {
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
    reportError(result, editors, last);
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

/** A run of editors 0..`last` failed (`result.error`): the error at its editor and line, and the other editors of
 * the run say what became of them, in place of "waiting…" or "running…": the one that was running when code it
 * called (in an earlier editor) failed, and those after it, which did not run. */
function reportError(result, editors, last) {
  const { editor, line, kind, message, traceback } = result.error;
  const failed = editors[editor] ?? editors[last];
  failed.showError(line, `${kind}: ${message}`, traceback);
  const running = Math.max(result.outputs.length - 1, failed.index);
  const why = `editor ${failed.index + 1}${failed.title ? ` (${failed.title})` : ''} failed${
    line ? ` at line ${line}` : ''} (${kind})`;
  if (running !== failed.index) editors[running].chrome.showMessage(`stopped: code it called in ${why}`, 'error');
  for (const e of editors.slice(running + 1, last + 1)) e.chrome.showMessage(`did not run: ${why}`, 'error');
}

/**
 * Python's status on every editor of `editors` (a list that grows as they mount), from `python`'s state, kept anew
 * every TICK_MS while it starts or runs (the elapsed times); the editor `target()` returns (the one whose Run is in
 * progress, or null) says the stages under it. {show(editor)}: show it on an editor just mounted; {tell(editor)}:
 * say the stages under it now.
 */
function statusLine(python, editors, target) {
  let ticker = null;
  const show = (editor, now = performance.now()) => editor.chrome.setStatus(statusOf(python, now));
  const tell = (editor, now = performance.now()) =>
    editor.chrome.showMessage(stagesLine(python.timeline, now) || 'running…');
  const refresh = () => {
    const now = performance.now();
    for (const e of editors) show(e, now);
    const editor = target();
    if (editor && (python.state === 'loading' || python.state === 'running')) tell(editor, now);
  };
  python.onState = (state, detail) => {
    refresh();
    const going = state === 'loading' || state === 'running';
    if (going && !ticker) ticker = setInterval(refresh, TICK_MS);
    if (!going && ticker) ticker = clearInterval(ticker) ?? null;
  };
  return { show, tell };
}

