// A step's CUDA block, from data: the lines it shows, with the values its step gives the declarations, as HTML (what
// the reader sees when the block is opened: cuda-blocks.js) or as plain text (what the page holds before that, and
// with JavaScript off: the site builder runs this same module in its embedded V8, kernelviz/site/cuda_render.py).
// No DOM: strings in, strings out.
//
// The builder (kernelviz/site/extensions/cuda.py) writes each block's data and, once per page, the source of each
// kernel its blocks cite:
//
//   block: {lines: [12, 13, 0, 20, ...],           the lines shown, in order; 0 where lines are left out (⋯)
//           region: [first, last],                 the cited region (kv-region; the other lines are kv-context)
//           notes: [[n, name] | [n, name, expr, over], ...],   declarations on line n the step gives a value:
//                  [n, name]: the step's own index (data-at); [n, name, expr, over]: `name = expr`, the indices put
//                  in, worth a note when it names a noted name of `over` (see blockNotes)
//           at: {j: 1}, host: {tiles_per_split: "..."}}   the step's indices, the host's derived arguments
//   file:  {page: "fa2.cu.html", lines: {"12": [cls, text, cls, text, ...]}}   each line as Pygments' tokens: a
//          class ('' for plain text) and its text; class "n@19" is a name declared on line 19, linked to it
//
// and the HTML is, line for line, what the builder wrote into every block before (kernelviz/site/cuda_code.py):
//   <span class="kv-line kv-banner"><span class="kv-ln"></span>// this step: i = 0, j = 1</span>
//   <span class="kv-line kv-region"><a class="kv-ln" href="fa2.cu.html#L45">45</a>code<span class="kv-notes"
//     data-gap="  ">  <span class="kv-note" data-name="col0" data-expr="1*Bc">// col0 = 1*Bc = 4</span>  </span>
//     <span class="c1">// its own comment</span></span>
//   <span class="kv-line kv-elided"><span class="kv-ln"></span>    ⋯</span>
// A step that does not run at the sizes shown (`runs` false: no step of the figure has its key) gets no values: its
// banner says so, and each note shows its expression alone.
import { evaluate } from './c-expr.js';

export const ELIDED = '⋯';
const NOT_RUN = 'this pass does not run at these sizes';

const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text of line `n` of `file`. */
export function lineText(file, n) {
  const tokens = file.lines[n] || [];
  let text = '';
  for (let k = 1; k < tokens.length; k += 2) text += tokens[k];
  return text;
}

/** {line: [{name, expr, value}]}: the notes of `block` at `sizes`, each value carried to the notes after it. Names
 * the host derives from the sizes and the step's indices are known first; a declaration over a noted name (the
 * indices at first) is noted when it has a value or names an index itself. `runs` false: no values. */
export function blockNotes(block, sizes, runs = true) {
  const at = block.at || {};
  const known = { ...sizes };
  for (const [name, expr] of Object.entries(block.host || {})) {
    const v = evaluate(expr, sizes);
    if (v !== null) known[name] = v;
  }
  Object.assign(known, at);
  const noted = new Set(Object.keys(at));
  const out = {};
  for (const [n, name, expr, over] of block.notes || []) {
    let note;
    if (expr === undefined) note = { name, expr: String(at[name]), value: at[name] };
    else {
      if (!over.some((x) => noted.has(x))) continue;
      const value = evaluate(expr, known);
      if (value === null && !over.some((x) => x in at)) continue; // over noted names only: a note when it has a value
      noted.add(name);
      if (value !== null) known[name] = value;
      note = { name, expr, value: runs ? value : null };
    }
    (out[n] ||= []).push(note);
  }
  return out;
}

/** The comment line above a block: "// this step: i = 0, j = 1" (none without indices, unless the step does not
 * run). */
export function banner(at, runs = true) {
  const pairs = Object.entries(at || {}).map(([k, v]) => `${k} = ${v}`);
  if (runs) return pairs.length ? `// this step: ${pairs.join(', ')}` : '';
  return pairs.length ? `// this step: ${pairs.join(', ')} · ${NOT_RUN}` : `// this step: ${NOT_RUN}`;
}

/** A note's text: "col0 = 1*Bc = 4", or "col0 = 1*Bc" without a value. */
export function noteText({ name, expr, value }) {
  return `${name} = ${expr}${value === null || value === undefined || String(value) === expr ? '' : ` = ${value}`}`;
}

/** The rows of a block: [{banner}, {elided: indent}, {n, region, notes}, ...]. */
export function blockRows(block, file, sizes, runs = true) {
  const notes = blockNotes(block, sizes, runs);
  const [first, last] = block.region;
  const rows = [];
  const top = banner(block.at, runs);
  if (top) rows.push({ banner: top });
  block.lines.forEach((n, k) => {
    if (n === 0) rows.push({ elided: /^\s*/.exec(lineText(file, block.lines[k + 1]))[0] });
    else rows.push({ n, region: first <= n && n <= last, notes: notes[n] || [] });
  });
  return rows;
}

/** [code tokens, the spaces before the line's own comment, its comment's tokens] of line `n` (no comment: all
 * code, '' and none). The notes go between code and comment, in the source's spaces. */
function splitAtComment(tokens) {
  for (let k = 0; k < tokens.length; k += 2) {
    if (tokens[k] !== 'c1') continue;
    const code = tokens.slice(0, k);
    let gap = '';
    if (k >= 2 && code[k - 2] === '') {
      gap = /\s*$/.exec(code[k - 1])[0];
      code[k - 1] = code[k - 1].slice(0, code[k - 1].length - gap.length);
    }
    return [code, gap, tokens.slice(k)];
  }
  return [tokens, '', null];
}

function tokensHtml(tokens, file) {
  let html = '';
  for (let k = 0; k < tokens.length; k += 2) {
    const [cls, to] = tokens[k].split('@');
    const text = escape(tokens[k + 1]);
    if (to) {
      const declared = escape(lineText(file, to).trim());
      const title = `${text}: declared on line ${to}: ${declared}`;
      html += `<a class="${cls} kv-ref" href="${file.page}#L${to}" title="${title}">${text}</a>`;
    } else html += cls ? `<span class="${cls}">${text}</span>` : text;
  }
  return html;
}

/** The HTML of the lines of `block` (the content of its <pre class="kv-code kv-cuda-code">), at `sizes`. */
export function blockHtml(block, file, sizes, runs = true) {
  const lines = blockRows(block, file, sizes, runs).map((row) => {
    if (row.banner !== undefined) return `<span class="kv-line kv-banner"><span class="kv-ln"></span>${escape(row.banner)}</span>`;
    if (row.elided !== undefined) return `<span class="kv-line kv-elided"><span class="kv-ln"></span>${row.elided}${ELIDED}</span>`;
    const [code, gap, comment] = splitAtComment(file.lines[row.n]);
    let html = tokensHtml(code, file);
    if (row.notes.length) {
      const spans = row.notes.map(
        (note) => `<span class="kv-note" data-name="${escape(note.name)}" data-expr="${escape(note.expr)}">// ${escape(noteText(note))}</span>`,
      );
      html += `<span class="kv-notes" data-gap="${gap}">  ${spans.join('  ')}${comment ? '  ' : ''}</span>`;
    } else html += gap;
    if (comment) html += tokensHtml(comment, file);
    const kind = row.region ? 'kv-region' : 'kv-context';
    return `<span class="kv-line ${kind}"><a class="kv-ln" href="${file.page}#L${row.n}">${row.n}</a>${html}</span>`;
  });
  return lines.join('\n');
}

/** The lines of `block` as plain text, at `sizes`: the code, its notes as comments, ⋯ where lines are left out. */
export function blockText(block, file, sizes, runs = true) {
  const text = (tokens) => tokens.filter((_, k) => k % 2 === 1).join('');
  const lines = blockRows(block, file, sizes, runs).map((row) => {
    if (row.banner !== undefined) return row.banner;
    if (row.elided !== undefined) return `${row.elided}${ELIDED}`;
    const [code, gap, comment] = splitAtComment(file.lines[row.n]);
    const notes = row.notes.map((note) => `// ${noteText(note)}`).join('  ');
    return text(code) + (notes ? `  ${notes}${comment ? '  ' : ''}` : gap) + (comment ? text(comment) : '');
  });
  return lines.join('\n');
}
