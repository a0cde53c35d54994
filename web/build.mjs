// Bundles the browser runtime into web/dist, which the site builder copies into every site:
//   dist/<name>.js        one bundle per web/src/entries/<name>.js (an ES module, minified, self-contained: no
//                         shared chunks, so a page or the worker starts with one request per bundle, not two)
//   dist/temml/           Temml's stylesheet for MathML (the system's math fonts) and its one small font (primes and
//                         script capitals, fetched only by a page that has them): math is typeset at build time
//   dist/build-time/      what only the site builder runs, never copied into a site: temml.min.js, Temml's build,
//                         which the builder runs in its embedded V8 to typeset math as MathML (kernelviz/site/
//                         mathml.py; no node),
//                         and check-scene.js, the browser's Scene checker, which the builder runs on each page's
//                         Scene (kernelviz/site/scenes.py), and render-figure.js, the figure's renderer on a DOM
//                         shim, which draws the SVG each page opens with (kernelviz/site/figure_svg.py), and
//                         cuda-blocks.js, the CUDA blocks' lines and values (kernelviz/site/cuda_render.py), and
//                         render-explorer.js, the overview's explorer on that shim (kernelviz/site/explorer_drawn.py),
//                         and render-roofline.js, a kernel page's roofline section as markup
//                         (kernelviz/site/extensions/roofline.py)
//   dist/pyodide/         the Pyodide files the worker loads (no source maps, no console pages); their sizes are
//                         the bundles' __PYODIDE_FILES__ ({file: bytes}), for the download's progress bar
// The Scene validator is generated from kernelviz/pie/scene.schema.json (Ajv standalone code), so Python and the
// browser check the same schema; import it as `kernelviz:validate-scene`. The closed forms are generated too:
// kernelviz/attention/js_port.py translates formulas.py and flops.py into web/.gen/formulas.js and flops.js, which
// src/explorer/formulas.js and src/roofline/flops.js re-export (any Python 3 runs it), and the
// algorithm records become data: kernelviz/attention/js_topics.py writes web/.gen/topics.js (each record's family,
// baseline, options and closed forms, so no browser code names an algorithm) and kernelviz/roofline/js_bound.py
// web/.gen/bound.js (the roofline's units, which model.js's bound evaluates), and js_words.py web/.gen/words.js (the
// units bytes and times are said in); these import the package (NumPy).
import { build } from 'esbuild';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const gen = join(here, '.gen');
const modules = join(here, 'node_modules');

function generateValidator() {
  const schema = JSON.parse(readFileSync(join(here, '..', 'kernelviz', 'pie', 'scene.schema.json'), 'utf8'));
  // inlineRefs: false: each $defs entry is one function, called where it is referred to, not inlined at every
  // reference (the same checks; the validator, the most of main.js, 73 -> 58 KB minified)
  const ajv = new Ajv2020({ code: { source: true, esm: true }, allErrors: false, strict: false, inlineRefs: false });
  const validate = ajv.compile(schema);
  mkdirSync(gen, { recursive: true });
  const file = join(gen, 'validate-scene.js');
  writeFileSync(file, standaloneCode(ajv, validate));
  return file;
}

const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
// {file: bytes} of those files, known to the bundles as __PYODIDE_FILES__ (the editors' progress bar in MB)
const pyodideSizes = Object.fromEntries(PYODIDE_FILES.map((f) => [f, statSync(join(modules, 'pyodide', f)).size]));

function copyAssets() {
  mkdirSync(join(dist, 'temml'), { recursive: true });
  cpSync(join(modules, 'temml', 'dist', 'Temml-Local.css'), join(dist, 'temml', 'temml.css'));
  cpSync(join(modules, 'temml', 'dist', 'Temml.woff2'), join(dist, 'temml', 'Temml.woff2'));
  cpSync(join(modules, 'temml', 'LICENSE'), join(dist, 'temml', 'LICENSE')); // MIT: its notice travels with it
  mkdirSync(join(dist, 'build-time'), { recursive: true });
  cpSync(join(modules, 'temml', 'dist', 'temml.min.js'), join(dist, 'build-time', 'temml.min.js'));
  mkdirSync(join(dist, 'pyodide'), { recursive: true });
  for (const f of PYODIDE_FILES) cpSync(join(modules, 'pyodide', f), join(dist, 'pyodide', f));
}

// The Python that generates them: $PYTHON, else the repository's .venv (make builds it first), else python3
const venvPython = join(here, '..', '.venv', 'bin', 'python');
const python = process.env.PYTHON || (existsSync(venvPython) ? venvPython : 'python3');

function generateClosedForms() {
  const script = join(here, '..', 'kernelviz', 'attention', 'js_port.py');
  execFileSync(python, [script, gen], { stdio: 'inherit' });
  // the records' data (js_topics: web/.gen/topics.js), the words' units (js_words) and the roofline's (js_bound:
  // web/.gen/bound.js) import the package (NumPy too), so they run as modules from the repository's root
  const generators = ['kernelviz.attention.js_topics', 'kernelviz.attention.js_words', 'kernelviz.roofline.js_bound'];
  for (const module of generators) {
    execFileSync(python, ['-m', module, gen], { stdio: 'inherit', cwd: join(here, '..') });
  }
}

const validator = generateValidator();
generateClosedForms();
rmSync(dist, { recursive: true, force: true });
const entriesDir = join(here, 'src', 'entries');
const entryPoints = readdirSync(entriesDir).filter((f) => f.endsWith('.js')).map((f) => join(entriesDir, f));
await build({
  entryPoints,
  outdir: dist,
  bundle: true,
  format: 'esm',
  minify: true,
  target: ['chrome110', 'firefox115', 'safari16'],
  alias: { 'kernelviz:validate-scene': validator },
  external: ['./pyodide/*'],
  define: { __PYODIDE_FILES__: JSON.stringify(pyodideSizes) },
  logLevel: 'warning',
});
copyAssets();
for (const name of ['check-scene.js', 'render-figure.js', 'cuda-blocks.js', 'render-explorer.js', 'render-roofline.js']) {
  await build({
    entryPoints: [join(here, 'src', 'build-time', name)],
    outfile: join(dist, 'build-time', name),
    bundle: true,
    format: 'iife',
    minify: true,
    alias: { 'kernelviz:validate-scene': validator },
    logLevel: 'warning',
  });
}
console.log(`web: bundled ${entryPoints.length} entries into ${dist}`);
