// The editors bundle (assets/editors.js), imported by the runtime once the figure is drawn: every ```pie block
// becomes a CodeMirror editor, and Python starts in a worker. The page's editor API is window.kernelvizEditors
// ({editors, python, run(index), runAll(), stop()}; runs resolve to what happened), used by tests and benchmarks.
// Performance marks: kv:editors-start (this bundle runs), kv:python-ready (each time a Python is ready),
// kv:run-start and kv:figure-updated (each run).
import '../editors/editors.css';
import { startEditors } from '../editors/session.js';

function linkStylesheet(href) {
  if ([...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}

performance.mark('kv:editors-start');
linkStylesheet(new URL('./editors.css', import.meta.url).href);
export const editors = document.querySelector('.kv-editor')
  ? startEditors(document, new URL('./worker.js', import.meta.url))
  : null;
window.kernelvizEditors = editors;
