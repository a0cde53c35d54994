// The step's values in the CUDA blocks follow the sizes the figure shows. The builder writes each value a
// declaration takes at a block's step as <span class="kv-note" data-name="col0" data-expr="1*Bc">// col0 = 1*Bc =
// 4</span> (kernelviz/site/cuda_code.py), computed at the sizes the page's figure was drawn at. The size form
// (form.kv-sizes, figure/page/sizes-form.js) sets data-applied="N8-Br4-Bc4" when the figure shows other sizes;
// then every note is computed again at those sizes. A note whose expression names a size the form lacks shows the
// expression alone.
//
// evaluate(expr, values) is the builder's step_at.evaluate: C integer arithmetic (+ - * / %, parentheses, min and
// max) on whole numbers; null when a name is unknown or the text is anything else.

/** The integer value of `expr` with names from `values`, or null. */
export function evaluate(expr, values) {
  const tokens = String(expr).match(/\s*(\d+|[A-Za-z_]\w*|[-+*/%(),]|\S)/g)?.map((t) => t.trim()) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = (want) => {
    if (want !== undefined && tokens[at] !== want) throw new Error(`expected ${want}`);
    return tokens[at++];
  };
  const atom = () => {
    const t = take();
    if (t === '-') return -atom();
    if (t === '(') {
      const v = sum();
      take(')');
      return v;
    }
    if (/^\d+$/.test(t)) return Number(t);
    if (t === 'min' || t === 'max') {
      take('(');
      const args = [sum()];
      while (peek() === ',') take(',') && args.push(sum());
      take(')');
      return Math[t](...args);
    }
    if (/^[A-Za-z_]\w*$/.test(t) && Number.isInteger(values[t])) return values[t];
    throw new Error(`unknown ${t}`);
  };
  const product = () => {
    let v = atom();
    while (['*', '/', '%'].includes(peek())) {
      const op = take();
      const w = atom();
      if (op !== '*' && (v < 0 || w <= 0)) throw new Error('C division of negative numbers');
      v = op === '*' ? v * w : op === '/' ? Math.trunc(v / w) : v % w;
    }
    return v;
  };
  const sum = () => {
    let v = product();
    while (['+', '-'].includes(peek())) v = take() === '+' ? v + product() : v - product();
    return v;
  };
  try {
    const v = sum();
    return at === tokens.length ? v : null;
  } catch {
    return null;
  }
}

/** The note's text at `sizes`: "col0 = 1*Bc = 8", or "col0 = 1*Bc" when a size is missing. */
export function noteText(name, expr, sizes) {
  const value = evaluate(expr, sizes);
  const shown = value === null || String(value) === expr ? expr : `${expr} = ${value}`;
  return `// ${name} = ${shown}`;
}

/** {name: integer} of the sizes a size form says the figure shows (its data-applied key, "N8-Br4-Bc4"). */
export function appliedSizes(form) {
  const sizes = {};
  for (const [, name, value] of (form.dataset.applied || '').matchAll(/([A-Za-z_]+)(\d+)/g)) sizes[name] = Number(value);
  return sizes;
}

/** Recompute the notes of `root` at `sizes`, block by block: with the arguments the host derives from the sizes
 * (data-host) and the step's indices (data-at), each note's value carried to the notes after it, as the builder
 * does (kernelviz/site/step_at.py). */
export function updateNotes(root, sizes) {
  for (const block of root.querySelectorAll('.kv-cuda[data-at]')) {
    const known = { ...sizes };
    for (const [name, expr] of Object.entries(JSON.parse(block.dataset.host || '{}'))) {
      const v = evaluate(expr, sizes);
      if (v !== null) known[name] = v;
    }
    Object.assign(known, JSON.parse(block.dataset.at));
    for (const note of block.querySelectorAll('.kv-note[data-expr]')) {
      note.textContent = noteText(note.dataset.name, note.dataset.expr, known);
      const v = evaluate(note.dataset.expr, known);
      if (v !== null) known[note.dataset.name] = v;
    }
  }
}

/** Follow the size form of the page: the notes are recomputed whenever it says the figure shows other sizes. */
export function wireCudaNotes(root = document) {
  const form = root.querySelector('form.kv-sizes');
  if (!form || !root.querySelector('.kv-note[data-expr]')) return;
  const follow = () => form.dataset.applied && updateNotes(root, appliedSizes(form));
  new MutationObserver(follow).observe(form, { attributes: true, attributeFilter: ['data-applied'] });
  follow();
}
