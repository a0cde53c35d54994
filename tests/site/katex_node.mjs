// KaTeX under node, the way the builder typeset math before it ran KaTeX in-process: node's ES-module KaTeX
// (web/node_modules/katex/dist/katex.mjs), with the builder's own options (kernelviz/site/katex_typeset.js: strict,
// trust, macros), so that only the engine and the KaTeX bundle differ. test_site_katex.py runs
//   node katex_node.mjs PATH/TO/katex.mjs PATH/TO/katex_typeset.js  <  {"items": [{"tex", "display"}], "macros": {}}
// and reads back what kvTypeset returns: [{"html": "..."} or {"error": "..."}, ...] with "warnings" where any.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

globalThis.katex = (await import(pathToFileURL(process.argv[2]).href)).default;
await import(pathToFileURL(process.argv[3]).href); // defines globalThis.kvTypeset
process.stdout.write(globalThis.kvTypeset(JSON.parse(readFileSync(0, 'utf8'))));
