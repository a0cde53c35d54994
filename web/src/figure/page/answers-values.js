// The values the figure's slots hold at the page's own sizes, for the figure's answers (ui/hover.js): the table the
// build wrote beside the figure (<script type="application/json" id="kv-answers">, kernelviz/site/answers.py), from
// the same NumPy run whose ledger the page's {{ trace }} numbers count:
//   {"sizes": {"N": 8, ...}, "keys": [step keys], "changes": [{slot name: value} of each step, what it changed]}
// A slot's value at step k is what the last change at or before k gave it. The table holds only while the figure
// shows the sizes and the steps it was made for: at other sizes (or after an edit) the answers give no values.
//
//   valuesTable(document, shownSizes, stepKeys) -> (step, name) -> value, or undefined

/** The page's table (null when it has none, or it cannot be read). */
function table(doc) {
  const source = doc.getElementById('kv-answers');
  if (!source) return null;
  try {
    return JSON.parse(source.textContent);
  } catch {
    return null;
  }
}

export function valuesTable(doc, shownSizes, stepKeys) {
  let t; // read when first asked: the table comes after the figure in the page, which this runs before
  const fits = () => {
    t ??= table(doc);
    if (!t) return false;
    const shown = shownSizes() || {};
    const keys = stepKeys();
    if (!keys || keys.length !== t.keys.length || keys.some((k, i) => k !== t.keys[i])) return false;
    return Object.entries(t.sizes).every(([name, v]) => !(name in shown) || Number(shown[name]) === Number(v));
  };
  return (step, name) => {
    if (!fits()) return undefined;
    for (let k = Math.min(step, t.changes.length - 1); k >= 0; k--) {
      if (Object.hasOwn(t.changes[k], name)) return t.changes[k][name];
    }
    return undefined;
  };
}
