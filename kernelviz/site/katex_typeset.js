// Loaded into the builder's embedded V8 after KaTeX's UMD build (katex.min.js, which sets globalThis.katex); see
// kernelviz/site/katex.py. kvTypeset({items: [{tex, display}], macros}) returns, as a JSON string and in the same
// order, [{"html": "..."} or {"error": "..."}, ...] with "warnings": [...] where KaTeX's strict mode objected to
// something it still typeset. Each formula gets its own copy of `macros`, so a \def in one never leaks into another.
globalThis.kvTypeset = ({ items, macros }) => {
  const results = items.map(({ tex, display }) => {
    const warnings = [];
    const strict = (code, message) => {
      warnings.push(`${code}: ${message}`);
      return 'ignore';
    };
    try {
      const html = katex.renderToString(tex, {
        displayMode: display,
        throwOnError: true,
        strict,
        output: 'htmlAndMathml',
        macros: { ...(macros || {}) },
      });
      return warnings.length ? { html, warnings } : { html };
    } catch (e) {
      return { error: e instanceof katex.ParseError ? e.message : String(e) };
    }
  });
  return JSON.stringify(results);
};
