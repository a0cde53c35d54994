// Temml under node: its ES-module build (web/node_modules/temml/dist/temml.mjs), with the builder's own wrapper
// (kernelviz/site/mathml_typeset.js: trust, strict-mode warnings, macros), so that only the engine and the Temml bundle
// differ from the builder's in-process run (temml.min.js in the embedded V8). test_site_mathml.py runs
//   node mathml_node.mjs PATH/TO/temml.mjs PATH/TO/mathml_typeset.js  <  {"items": [{"tex", "display"}], "macros": {}}
// and reads back what kvTypeset returns: [{"html": "..."} or {"error": "..."}, ...] with "warnings" where any.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

globalThis.temml = (await import(pathToFileURL(process.argv[2]).href)).default;
await import(pathToFileURL(process.argv[3]).href); // defines globalThis.kvTypeset
process.stdout.write(globalThis.kvTypeset(JSON.parse(readFileSync(0, 'utf8'))));
