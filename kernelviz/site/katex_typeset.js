// Loaded into the builder's embedded V8 after KaTeX's UMD build (katex.min.js, which sets globalThis.katex); see
// kernelviz/site/katex.py. kvTypeset({items: [{tex, display}], macros}) returns, as a JSON string and in the same
// order, [{"html": "..."} or {"error": "..."}, ...] with "warnings": [...] where KaTeX's strict mode objected to
// something it still typeset. Each formula gets its own copy of `macros`, so a \def in one never leaks into another.
// The palette's macros (\kvm{…}: kernelviz/site/palette.py) are \htmlClass{kv-c-NAME}{…}: that command, with such a
// class, is trusted and no strict-mode warning; nothing else is trusted.
const trust = (context) => context.command === '\\htmlClass' && /^kv-c-[a-z0-9-]+$/.test(context.class);

globalThis.kvTypeset = ({ items, macros }) => {
  const results = items.map(({ tex, display }) => {
    const warnings = [];
    const strict = (code, message) => {
      if (code === 'htmlExtension') return 'ignore';
      warnings.push(`${code}: ${message}`);
      return 'ignore';
    };
    try {
      const html = katex.renderToString(tex, {
        displayMode: display,
        throwOnError: true,
        strict,
        trust,
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
