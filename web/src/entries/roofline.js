// The roofline section of a kernel page (``{{ roofline }}``, kernelviz/site/extensions/roofline.py), which the
// page opens with as the builder drew it (build-time/render-roofline.js, the same roofline/section.js). Here it is
// taken over as it is and drawn again, by that same code, when what it shows changes: the sizes the figure shows
// (the size form's data-applied, which the figure sets once it is drawn at new sizes), the preset the reader picks,
// or the width it has (the plot is drawn at the width of its box, so that its text stays legible on a phone). A
// change of sizes or preset is said in the section's live region (a status); a table wider than its box says that
// it scrolls (data-more on its scroll region: a shadow on the side where more is, and a line above it).
import '../roofline/roofline.css';
import { appliedSizes } from '../page/cuda-blocks.js';
import { body, summary } from '../roofline/section.js';

const MAX_WIDTH = 760;

/** Mark the table's scroll region with the sides it can scroll to (data-more="left right"), and show the line that
 * says it scrolls while it can. */
function scrollCue(section) {
  const scroller = section.querySelector('.kv-roof-table');
  if (!scroller) return;
  const left = scroller.scrollLeft > 1;
  const right = scroller.scrollLeft + scroller.clientWidth < scroller.scrollWidth - 1;
  const more = [left && 'left', right && 'right'].filter(Boolean).join(' ');
  if (more) scroller.dataset.more = more;
  else delete scroller.dataset.more;
  const hint = section.querySelector('.kv-roof-more');
  if (hint) hint.hidden = scroller.scrollWidth <= scroller.clientWidth + 1;
}

function wire(section) {
  const spec = JSON.parse(section.querySelector('.kv-roof-spec').textContent);
  const form = document.querySelector('form.kv-sizes');
  const state = { sizes: spec.sizes, preset: 'figure', gpu: spec.gpus[0].key, width: 0, key: '' };
  const said = section.querySelector('.kv-roof-said');
  const draw = () => {
    redraw();
    scrollCue(section);
  };
  const redraw = () => {
    const old = section.querySelector('.kv-roof-body');
    const width = Math.round(Math.min(MAX_WIDTH, old.clientWidth || section.clientWidth || MAX_WIDTH));
    const sizes = form?.dataset.applied ? { ...spec.sizes, ...appliedSizes(form) } : spec.sizes;
    const key = JSON.stringify([sizes, state.preset, state.gpu, width]);
    if (key === state.key) return;
    const drawnWidth = Number(old.querySelector('svg.kv-roof-plot')?.getAttribute('width'));
    const shown = JSON.stringify([sizes, state.preset, state.gpu]);
    const same = old.dataset.drawn === shown && Math.abs(drawnWidth - width) < 24;
    if (said && state.key && old.dataset.drawn !== shown) said.textContent = summary(spec, { ...state, sizes });
    Object.assign(state, { sizes, width, key });
    if (same) return; // what is drawn is this already (the build's drawing, on a wide screen)
    const holder = document.createElement('div');
    holder.innerHTML = body(spec, state);
    old.replaceWith(holder.firstElementChild);
    section.dispatchEvent(new CustomEvent('kv-roofline-drawn', { bubbles: true }));
  };
  section.querySelector('.kv-roof-presets').addEventListener('change', (e) => {
    state.preset = e.target.value;
    draw();
  });
  section.querySelector('.kv-roof-gpus')?.addEventListener('change', (e) => {
    state.gpu = e.target.value;
    draw();
  });
  if (form) new MutationObserver(draw).observe(form, { attributes: true, attributeFilter: ['data-applied'] });
  let pending = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(draw);
  }).observe(section);
  section.addEventListener('scroll', () => scrollCue(section), { capture: true, passive: true }); // (the table's)
  draw();
  section.dataset.ready = '';
}

function start() {
  document.querySelectorAll('section.kv-roofline').forEach(wire);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
