// The editors bundle (assets/editors.js), imported by the runtime once the figure is drawn: every ```pie block
// becomes a CodeMirror editor, a step at a time at the runtime's quiet moments (page/state.js quiet; without the
// runtime, task after task), so no step holds the main thread for long. Python (Pyodide in a worker) is not
// fetched until the reader reaches for it (see editors/session.js). The page's editor API ({editors, python,
// run(index), runAll(), stop()}; runs resolve to what happened; python.start() loads Python) is published once every
// editor is mounted (page/state.js publishEditors, which tests and benchmarks reach as window.kernelvizEditors).
// Performance marks: kv:editors-start (this bundle runs), kv:editor-mounted (each editor, detail {index}),
// kv:python-start (the worker created), kv:python-ready (each time a Python is ready, detail {ms, phases, bytes}),
// kv:run-start and kv:figure-updated (each run).
import '../editors/editors.css';
import { Python } from '../editors/python.js';
import { startEditors } from '../editors/session.js';
import { publishEditors, quiet } from '../page/state.js';

/** Link the stylesheet at `href` (once); a promise resolved when it has loaded (or failed to). A stylesheet linked
 * by a script does not hold back rendering: an editor mounted before it applies would be drawn at another size. */
function linkStylesheet(href) {
  const linked = [...document.querySelectorAll('link[rel=stylesheet]')].find((l) => l.href === href);
  if (linked?.sheet) return Promise.resolve();
  const link = linked ?? Object.assign(document.createElement('link'), { rel: 'stylesheet', href });
  const loaded = new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true }); // the editors mount unstyled rather than never
  });
  if (!linked) document.head.append(link);
  return loaded;
}

async function start() {
  await quiet(); // linking a stylesheet costs the main thread (~20 ms measured): not in the task the bundle runs in
  await linkStylesheet(new URL('./editors.css', import.meta.url).href); // mounted editors have their size at once
  return publishEditors(await startEditors(document, python, quiet));
}

performance.mark('kv:editors-start');
const python = new Python(new URL('./worker.js', import.meta.url));
/** The page's editor API once started (a promise; null on a page without editors). */
export const editors = document.querySelector('.kv-editor') ? start() : null;
/** The reader reached for Python (before the editors were mounted, e.g. a pointer that loaded this bundle): start it. */
export function wantPython() {
  if (editors) python.start();
}
