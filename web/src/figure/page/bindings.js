// The page's elements bound to steps (data-step="K": bullets <li>, CUDA <details>). Clicking a bound bullet plays
// its step; the current step's elements get the class kv-current and are scrolled into view (block: 'nearest'),
// so prose, code and figure move together.

export class Bindings {
  constructor(root, goTo, reducedMotion) {
    this.root = root;
    this.reducedMotion = reducedMotion;
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

  /** Mark step k's elements; with `scroll`, bring the first into view. */
  mark(k, scroll) {
    let first = null;
    for (const node of this.bound()) {
      const on = node.dataset.step === String(k);
      node.classList.toggle('kv-current', on);
      if (on) first ||= node;
    }
    if (first && scroll) first.scrollIntoView({ block: 'nearest', behavior: this.reducedMotion() ? 'auto' : 'smooth' });
  }

  remove() {
    this.root.removeEventListener('click', this.onClick);
  }
}
