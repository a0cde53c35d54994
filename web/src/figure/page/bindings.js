// The page's elements bound to steps: bullets <li> and CUDA <details>, by number (data-step="K") or by meaning
// (data-step-key="load K,V i=0 j=1", the figure contract E). Clicking a bound bullet plays its step; the current
// step's elements get the class kv-current and, for a reader who follows the steps (ui/follow.js), are scrolled
// into view at once (block: 'nearest'), so prose, code and figure move together.
//
// A key names the first step with that key in the figure shown now: `refresh(steps)` (each new Scene: other sizes,
// the kernel edited and run) gives each keyed element the number of that step as data-step, or, when no step has
// its key any more, takes data-step away and shows the element disabled (aria-disabled="true") with the reason.
// A figure whose steps have no keys at all (the seed pages' own code, pasted into an editor and run) is bound by
// label instead: the element's data-step-label, the label its step had in the built figure, which the pages write
// in the seeds' words ("block 0 · j = 1 · load K1, V1").

const GONE = 'kv-step-gone'; // the class of the reason shown beside a disabled element

/** Map of each value of `field` in `steps` to the index of the first step with it. */
function firstOf(steps, field) {
  const first = new Map();
  steps.forEach((step, k) => {
    if (step[field] !== undefined && !first.has(step[field])) first.set(step[field], k);
  });
  return first;
}

export class Bindings {
  constructor(root, goTo) {
    this.root = root;
    this.onClick = (e) => {
      const li = e.target.closest?.('li[data-step]');
      if (!li || e.target.closest('a, button, summary, input, .kv-editor') || getSelection().toString()) return;
      goTo(Number(li.dataset.step));
    };
    root.addEventListener('click', this.onClick);
  }

  bound() {
    return [...this.root.querySelectorAll('[data-step]')].filter((node) => !node.closest('.kv-figure'));
  }

  /** Bind each keyed element to the first of `steps` with its key, or its label when no step has a key (above). */
  refresh(steps) {
    const byKey = firstOf(steps, 'key');
    const byLabel = byKey.size ? null : firstOf(steps, 'label');
    for (const node of this.root.querySelectorAll('[data-step-key]')) {
      if (node.closest('.kv-figure')) continue;
      const k = byLabel ? byLabel.get(node.dataset.stepLabel) : byKey.get(node.dataset.stepKey);
      const reason = [...node.children].find((c) => c.classList.contains(GONE));
      if (k !== undefined) {
        node.dataset.step = String(k);
        node.removeAttribute('aria-disabled');
        reason?.remove();
        continue;
      }
      delete node.dataset.step;
      node.classList.remove('kv-current');
      node.setAttribute('aria-disabled', 'true');
      const name = byLabel ? node.dataset.stepLabel ?? node.dataset.stepKey : node.dataset.stepKey;
      const text = `no step “${name}” in the figure now`;
      if (reason) reason.textContent = text;
      else {
        const span = Object.assign(document.createElement('span'), { className: GONE, textContent: text });
        (node.matches('details') ? node.querySelector('summary') || node : node).append(span);
      }
    }
  }

  /** Mark step k's elements; with `scroll`, bring the first into view. */
  mark(k, scroll) {
    let first = null;
    for (const node of this.bound()) {
      const on = node.dataset.step === String(k);
      node.classList.toggle('kv-current', on);
      if (on) first ||= node;
    }
    // At once, near or far: a glide would scroll the text in every frame of the step's animation, and a frame that
    // both scrolls and redraws the figure re-layers the whole page (about 15 ms here), where either alone is cheap.
    if (first && scroll) first.scrollIntoView({ block: 'nearest', behavior: 'instant' });
  }

  remove() {
    this.root.removeEventListener('click', this.onClick);
  }
}
