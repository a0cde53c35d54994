// The page's CUDA blocks, rendered when the reader opens one. The builder writes each <details class="kv-cuda"> with
// its data (data-code, data-at, data-host: cuda-code.js) over a <pre class="kv-code kv-cuda-code"> of plain text,
// which is what prints and what a reader without JavaScript reads; and once per page, in
// <script type="application/json" id="kv-cuda-source">{"sizes": {...}, "files": {"fa2.cu": FILE}}</script>, each
// cited kernel's lines as highlighted tokens and the sizes the page's figure was drawn at.
//
// A block's <pre> becomes its highlighted, linked lines, with the step's values at the sizes the figure shows, when
// it is opened (on the click, before it shows), before a print (`beforeprint`), and again, if it is open, whenever
// those sizes change (the size form's data-applied, figure/page/sizes-form.js: "N8-Br4-Bc4") or its step comes or
// goes from the figure (aria-disabled, figure/page/bindings.js): a step the figure does not have at these sizes
// does not run, and its block says so instead of giving values.
import { blockHtml } from './cuda-code.js';

const BLOCKS = 'details.kv-cuda[data-code]';

/** {name: integer} of the sizes a size form says the figure shows (its data-applied key, "N8-Br4-Bc4"). */
export function appliedSizes(form) {
  const sizes = {};
  for (const [, name, value] of (form.dataset.applied || '').matchAll(/([A-Za-z_]+)(\d+)/g)) sizes[name] = Number(value);
  return sizes;
}

/** Render the blocks of `root` when they are opened or printed, at the sizes the figure shows. */
export function wireCudaBlocks(root = document) {
  const script = root.querySelector('#kv-cuda-source');
  if (!script || !root.querySelector(BLOCKS)) return;
  let data = null; // parsed on the first render
  const form = root.querySelector('form.kv-sizes');
  const sizes = () => (form?.dataset.applied ? appliedSizes(form) : data.sizes);

  const render = (details) => {
    data ||= JSON.parse(script.textContent);
    const runs = details.getAttribute('aria-disabled') !== 'true';
    const key = `${form?.dataset.applied ?? ''}|${runs}`;
    if (details.dataset.rendered === key) return;
    const file = data.files[details.dataset.cite.split('#')[0]];
    const block = { ...JSON.parse(details.dataset.code), at: JSON.parse(details.dataset.at || '{}') };
    block.host = JSON.parse(details.dataset.host || '{}');
    details.querySelector('pre.kv-cuda-code').innerHTML = blockHtml(block, file, sizes(), runs);
    details.dataset.rendered = key;
  };
  const renderOpen = () => root.querySelectorAll(`${BLOCKS}[open]`).forEach(render);

  root.addEventListener('click', (e) => {
    const summary = e.target.closest?.('summary');
    const details = summary?.parentElement;
    if (details?.matches(BLOCKS) && summary === details.querySelector('summary') && !details.open) render(details);
  });
  root.addEventListener('toggle', (e) => e.target.matches?.(BLOCKS) && e.target.open && render(e.target), true);
  addEventListener('beforeprint', () => root.querySelectorAll(BLOCKS).forEach(render));
  const watch = new MutationObserver(renderOpen);
  if (form) watch.observe(form, { attributes: true, attributeFilter: ['data-applied'] });
  for (const details of root.querySelectorAll(BLOCKS)) watch.observe(details, { attributes: true, attributeFilter: ['aria-disabled'] });
  renderOpen();
}
