// A Copy button on every read-only code block of the page: the prose's highlighted <pre class="kv-code"> (Markdown
// fences), a step's CUDA block (details.kv-cuda > pre.kv-cuda-code) and a whole-kernel page's source
// (pre.kv-cuda-file). An editor's <pre> is not one: the editors bundle gives each editor a Copy of its own
// (editors/chrome.js), which copies the reader's edits.
//
// What is copied is the code alone. Numbered lines (page/cuda-code.js: a span.kv-line each) are copied
// without their numbers (a.kv-ln), without the step's values the page adds (span.kv-notes, whose data-gap is the
// spaces the source had there), without the "// this step:" banner (.kv-banner) or the ⋯ of lines left out
// (.kv-elided): the copy is lines of the .cu file, in order. Any other block is copied as its text.
//
// Each block is wrapped in a div.kv-copyable that holds the button in its top right corner (copy-code.css); the
// room the button takes is kept from the first paint by the stylesheet, so adding it moves nothing.
import { h } from '../lib/dom.js';
import { copyButton } from './clipboard.js';
import './copy-code.css';

const BLOCKS = 'pre.kv-code';

/** The code of `pre`, as the reader would want it pasted. */
export function codeOf(pre) {
  const lines = pre.querySelectorAll(':scope > .kv-line');
  if (!lines.length) return pre.textContent;
  const code = [...lines].filter((line) => !line.matches('.kv-banner, .kv-elided')).map(lineText);
  return `${code.join('\n')}\n`;
}

function lineText(line) {
  const copy = line.cloneNode(true);
  for (const n of copy.querySelectorAll('.kv-ln')) n.remove();
  for (const n of copy.querySelectorAll('.kv-notes')) n.replaceWith(n.dataset.gap ?? '');
  return copy.textContent;
}

/** What the button of `pre` copies, in words: its accessible name. */
function nameOf(pre) {
  if (pre.matches('.kv-cuda-code')) return 'Copy the CUDA code';
  if (pre.matches('.kv-cuda-file')) {
    const file = /([^/]+)\.html#/.exec(pre.querySelector('a.kv-ln')?.getAttribute('href') || '')?.[1];
    return file ? `Copy all of ${file}` : 'Copy the whole kernel';
  }
  return 'Copy the code';
}

/** Give every read-only code block of `root` its Copy button. */
export function wireCopyCode(root = document) {
  for (const pre of root.querySelectorAll(BLOCKS)) {
    if (pre.closest('.kv-editor, .kv-copyable')) continue;
    const button = h('button', { type: 'button', class: 'kv-copy', 'aria-label': nameOf(pre) }, 'Copy');
    copyButton(button, () => codeOf(pre));
    const wrap = h('div', { class: 'kv-copyable' });
    pre.before(wrap);
    wrap.append(button, pre); // the button first: Tab reaches it before the links in the code
  }
}
