// The C integer arithmetic of the kernels' declarations (``int col0 = n_start + j*Bc;``), the one evaluator of the
// site: the browser's CUDA blocks compute their step's values with it (cuda-code.js), and the site builder runs this
// same code in its embedded V8 (web/src/build-time/cuda-blocks.js, kernelviz/site/cuda_render.py).
//
// evaluate(expr, values): + - * / % (C's division of non-negative numbers), unary minus, parentheses, min and max,
// on whole numbers, with names from `values`; null when a name is unknown, a division is by zero or of a negative
// number, or the text is anything else.

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
