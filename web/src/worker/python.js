// Pyodide with kernelviz, inside the worker. Pyodide comes from the site (assets/pyodide/, copied from the npm
// package by web/build.mjs); kernelviz's runner and pie come from the site too (assets/py/, listed in
// assets/py/manifest.json by the site builder): the same files CPython runs at build time.

const ROOT = '/home/pyodide/kernelviz-site'; // where the kernelviz files are written in Pyodide's file system

// Runs in a namespace of its own: puts kernelviz on the path and defines kv_run(json) -> json.
const BRIDGE = `
import importlib, json, sys
sys.path.insert(0, ${JSON.stringify(ROOT)})
importlib.invalidate_caches()
from kernelviz.runner import Source, run

def kv_run(payload, sizes="null"):
    sources = [Source(s["code"], s.get("name", ""), s.get("first_line", 1)) for s in json.loads(payload)]
    return json.dumps(run(sources, json.loads(sizes)).to_dict())

run([])  # imports and warms everything the first real run needs
`;

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return response.text();
}

/** The kernelviz files listed by `py/manifest.json` under `assets`: [[path, text]]. */
async function kernelvizFiles(assets) {
  const py = new URL('py/', assets);
  const manifest = JSON.parse(await fetchText(new URL('manifest.json', py)));
  const paths = Array.isArray(manifest) ? manifest : manifest.files;
  return Promise.all(paths.map(async (path) => [path, await fetchText(new URL(path, py))]));
}

function writeFiles(pyodide, files) {
  for (const [path, text] of files) {
    const file = `${ROOT}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf('/')));
    pyodide.FS.writeFile(file, text);
  }
}

/**
 * Load Pyodide from `assets`/pyodide/ and kernelviz from `assets`/py/. Resolves to {run, phases}: run(sources, sizes)
 * -> RunResult dict (`sizes`, optional: {N: 12, ...} overriding the kernel's figlib.sizes defaults), and phases the
 * milliseconds each part of loading took. `onStage('code')` is called once Pyodide has started, as kernelviz's
 * files are written and imported.
 */
export async function loadPython(assets, onStage = () => {}) {
  const phases = {};
  let t = performance.now();
  const lap = (name) => {
    phases[name] = performance.now() - t;
    t = performance.now();
  };
  const indexURL = new URL('pyodide/', assets).href;
  const files = kernelvizFiles(assets); // fetched while Pyodide loads
  const { loadPyodide } = await import(new URL('pyodide.mjs', indexURL).href);
  lap('import');
  const pyodide = await loadPyodide({
    indexURL,
    packageBaseUrl: indexURL, // never a CDN, even if something asks for a package
    stdout: () => {},
    stderr: () => {},
  });
  lap('pyodide');
  onStage('code');
  pyodide.setStdin({ error: true }); // input() raises instead of waiting for a prompt a worker cannot show
  writeFiles(pyodide, await files);
  lap('files');
  const namespace = pyodide.globals.get('dict')();
  pyodide.runPython(BRIDGE, { globals: namespace });
  lap('kernelviz');
  const kvRun = namespace.get('kv_run');
  return { run: (sources, sizes) => JSON.parse(kvRun(JSON.stringify(sources), JSON.stringify(sizes ?? null))), phases };
}
