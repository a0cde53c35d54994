// What the Python worker downloads, counted as it arrives, so the page can show a progress bar in MB.
//
// Every fetch() in the worker (Pyodide fetches pyodide.asm.wasm, python_stdlib.zip and pyodide-lock.json with it;
// the worker fetches kernelviz's files with it) is answered with the same response whose body counts its bytes as
// they are read. Pyodide's two modules (pyodide.mjs, pyodide.asm.mjs) are imported, not fetched: they count whole
// when the resource timing entry says they have arrived. The total is the Pyodide files' sizes, known when the
// runtime was built (`expected`: {file name: bytes}), plus the Content-Length of anything else fetched.

const name = (url) => new URL(url, location.href).pathname.split('/').pop();

/**
 * Count the worker's downloads from now on: `onProgress({loaded, total, fetched})` follows them, at most every
 * `everyMs` and once more whenever a file ends; `fetched` is whether every expected file that is fetched (not
 * imported: not .mjs) has come whole (the byte count can lag behind it: imported modules are counted from resource
 * entries, which come late on a busy machine). Returns () => {loaded, total, fetched} now.
 */
export function countDownloads(expected, onProgress, everyMs = 100) {
  let loaded = 0;
  let total = Object.values(expected).reduce((a, b) => a + b, 0);
  let last = 0;
  const fetched = new Set(); // the names counted as streams (their resource entries must not count them again)
  const whole = new Set(); // the names whose stream has ended
  const streamed = Object.keys(expected).filter((file) => !file.endsWith('.mjs'));
  const now = () => ({ loaded, total, fetched: streamed.every((file) => whole.has(file)) });
  const report = (force = false) => {
    const t = performance.now();
    if (!force && t - last < everyMs) return;
    last = t;
    onProgress(now());
  };

  const fetchOriginal = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
    fetched.add(name(url));
    const response = await fetchOriginal(input, init);
    if (!response.ok || !response.body) return response;
    if (!(name(url) in expected)) total += Number(response.headers.get('content-length')) || 0;
    const counting = new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        report();
        controller.enqueue(chunk);
      },
      flush: () => {
        whole.add(name(url));
        report(true);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(response.body.pipeThrough(counting), { status, statusText, headers });
  };

  if (typeof PerformanceObserver === 'function') {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const file = name(entry.name);
        if (!(file in expected) || fetched.has(file)) continue;
        fetched.add(file);
        loaded += expected[file];
        report(true);
      }
    }).observe({ type: 'resource', buffered: true });
  }
  report(true);
  return now;
}
