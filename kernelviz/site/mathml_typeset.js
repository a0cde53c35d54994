// Loaded into the builder's embedded V8 after Temml's build (temml.min.js, which sets globalThis.temml); see
// kernelviz/site/mathml.py. kvTypeset({items: [{tex, display}], macros}) returns, as a JSON string and in the same
// order, [{"html": "<math>…</math>"} or {"error": "..."}, ...] with "warnings": [...] where Temml's strict mode
// objected to something it still typeset. Each formula gets its own copy of `macros`, so a \def in one never leaks
// into another. The palette's macros (\kvm{…}: kernelviz/site/palette.py) are \class{kv-c-NAME}{…}: that command,
// with such a class, is trusted; nothing else is.
//
// Strict mode: Temml's strict mode throws on, or logs, what LaTeX itself would refuse or warn about (an accented
// letter in math mode, a % comment that ends the formula, ...), and it refuses \class. So each formula is typeset
// leniently (the output), then again strictly with the palette's \class dropped from the macros: what the strict run
// throws or logs is a warning.
const trust = (context) => context.command === '\\class' && /^kv-c-[a-z0-9-]+$/.test(context.class);
const logged = [];
globalThis.console = { log: (...args) => logged.push(args.join(' ')), warn: (...args) => logged.push(args.join(' ')) };

// Temml's message on one line (it breaks the line before the formula it quotes, the culprit underlined)
const message = (e) => (e.name === 'ParseError' ? e.message : String(e)).trim().replace(/\s*\n\s*/g, ' ');

globalThis.kvTypeset = ({ items, macros }) => {
  const plain = Object.fromEntries(
    Object.entries(macros || {}).map(([name, body]) => [name, body.replace(/\\class\{kv-c-[a-z0-9-]+\}/g, '')]),
  );
  const results = items.map(({ tex, display }) => {
    let html;
    try {
      html = temml.renderToString(tex, {
        displayMode: display,
        throwOnError: true,
        trust,
        macros: { ...(macros || {}) },
      });
    } catch (e) {
      return { error: `Temml parse error: ${message(e)}` };
    }
    logged.length = 0;
    const warnings = [];
    try {
      temml.renderToString(tex, { displayMode: display, throwOnError: true, strict: true, macros: { ...plain } });
    } catch (e) {
      warnings.push(message(e));
    }
    warnings.push(...logged.map((line) => line.replace(/^Temml (parse error|strict-mode warning): /, '')));
    return warnings.length ? { html, warnings } : { html };
  });
  return JSON.stringify(results);
};
