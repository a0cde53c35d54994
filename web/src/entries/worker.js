// The Python worker (assets/worker.js, a module worker the editors start when the reader reaches for Python). It
// loads Pyodide and kernelviz at once. Messages in: {type: 'run', id, sources, sizes} (sizes optional: {N: 12,
// ...}, the kernel's figlib.sizes overrides). Messages out: {type: 'progress', loaded, total} (bytes downloaded so
// far, of the total; see worker/downloads.js) while it loads, then {type: 'ready', ms, phases, bytes} (load time,
// its parts, bytes downloaded) or {type: 'failed', message} once, then for each run {type: 'started', id} and
// {type: 'result', id, result, ms}, or {type: 'crashed', id, message} when Python itself failed (the runner
// catches the reader's errors; this is Pyodide dying, e.g. out of stack). A run sent while Python loads waits for
// it. While it loads, {type: 'stage', stage} says when the download is over and Pyodide starts ('start': every byte
// counted has come, or every file fetched has) and when kernelviz is written and imported ('code'); see editors/stages.js.
import { countDownloads } from '../worker/downloads.js';
import { loadPython } from '../worker/python.js';

/* global __PYODIDE_FILES__ */
const t0 = performance.now();
let started = false;
const downloaded = countDownloads(__PYODIDE_FILES__, ({ loaded, total, fetched }) => {
  postMessage({ type: 'progress', loaded, total });
  if (started || (loaded < total && !fetched)) return;
  started = true;
  postMessage({ type: 'stage', stage: 'start' });
});
const python = loadPython(new URL('./', import.meta.url), (stage) => postMessage({ type: 'stage', stage }));
python.then(
  ({ phases }) => {
    const { loaded, total } = downloaded();
    postMessage({ type: 'progress', loaded, total });
    postMessage({ type: 'ready', ms: performance.now() - t0, phases, bytes: downloaded().loaded });
  },
  (error) => postMessage({ type: 'failed', message: String(error?.message || error) }),
);

onmessage = async ({ data }) => {
  if (data?.type !== 'run') return;
  const { run } = (await python.catch(() => null)) ?? {};
  if (!run) return; // 'failed' was posted
  postMessage({ type: 'started', id: data.id });
  const start = performance.now();
  try {
    const result = run(data.sources, data.sizes);
    postMessage({ type: 'result', id: data.id, result, ms: performance.now() - start });
  } catch (error) {
    postMessage({ type: 'crashed', id: data.id, message: String(error?.message || error) });
  }
};
