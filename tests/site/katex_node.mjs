// KaTeX under node, as the site builder typeset math before it ran KaTeX in-process; test_site_katex.py runs
//   node katex_node.mjs PATH/TO/katex.mjs  <  [{"tex": "...", "display": false}, ...]
// and reads back, in the same order, [{"html": "..."} or {"error": "..."}, ...] with "warnings": [...] where KaTeX's
// strict mode objected to something it still typeset.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const { default: katex } = await import(pathToFileURL(process.argv[2]).href);
const items = JSON.parse(readFileSync(0, 'utf8'));

const results = items.map(({ tex, display }) => {
  const warnings = [];
  const strict = (code, message) => {
    warnings.push(`${code}: ${message}`);
    return 'ignore';
  };
  try {
    const html = katex.renderToString(tex, { displayMode: display, throwOnError: true, strict, output: 'htmlAndMathml' });
    return warnings.length ? { html, warnings } : { html };
  } catch (e) {
    return { error: e instanceof katex.ParseError ? e.message : String(e) };
  }
});
process.stdout.write(JSON.stringify(results));
