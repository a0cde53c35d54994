// The editors bundle (assets/editors.js), imported by the runtime once the figure is drawn: every ```pie block
// becomes a CodeMirror editor, a step at a time at the runtime's quiet moments (window.kernelviz.quiet; without the
// runtime, task after task), so no step holds the main thread for long. Python (Pyodide in a worker) is not
// fetched until the reader reaches for it (see editors/session.js). The page's editor API is
// window.kernelvizEditors ({editors, python, run(index), runAll(), stop()}; runs resolve to what happened;
// python.start() loads Python), set once every editor is mounted; used by tests and benchmarks.
// Performance marks: kv:editors-start (this bundle runs), kv:editor-mounted (each editor, detail {index}),
// kv:python-start (the worker created), kv:python-ready (each time a Python is ready, detail {ms, phases, bytes}),
// kv:run-start and kv:figure-updated (each run).
import '../editors/editors.css';
import { Python } from '../editors/python.js';
import { nextTask, startEditors } from '../editors/session.js';

function linkStylesheet(href) {
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}

async function start() {
  await quiet(); // linking a stylesheet costs the main thread (~20 ms measured): not in the task the bundle runs in
  linkStylesheet(new URL('./editors.css', import.meta.url).href);
  window.kernelvizEditors = await startEditors(document, python, quiet);
  return window.kernelvizEditors;
}

performance.mark('kv:editors-start');
const quiet = window.kernelviz?.quiet ?? nextTask;
const python = new Python(new URL('./worker.js', import.meta.url));
/** The page's editor API once started (a promise; null on a page without editors). */
export const editors = document.querySelector('.kv-editor') ? start() : null;
/** The reader reached for Python (before the editors were mounted, e.g. a pointer that loaded this bundle): start it. */
export function wantPython() {
  if (editors) python.start();
}
