// The size form beside a kernel figure (figure contract D), as the builder writes it:
//   <form class="kv-sizes" data-scenes="PREFIX" data-prerendered='["N8-Br4-Bc4", ...]'>
//     <label>N <input name="N" type="number" min=.. max=.. step="1" value=..></label> ...
// Each input is a whole number in its range: a value out of range is refused with the range stated beside it, and
// the box shows what is applied (forms/number-field.js). A value in range asks `request(sizes)` for the figure at
// those sizes (all the form's sizes, in its order); the figure answers with `show(sizes)` once it is drawn, or the
// request fails and the form goes back to what is shown (`show` again) with `say(why)`.
// data-tied='{"N_kv":"N"}' (optional): a size that follows another while the two are equal (as many keys as
// queries, unless the reader says otherwise).
import { numberField } from '../../forms/number-field.js';

export class SizesForm {
  /** `form`: the form element; `request(sizes)` is called for every size in range the reader enters. */
  constructor(form, request) {
    this.form = form;
    this.prefix = form.dataset.scenes || '';
    try {
      this.prerendered = new Set(JSON.parse(form.dataset.prerendered || '[]'));
    } catch {
      this.prerendered = new Set();
    }
    try {
      this.tied = JSON.parse(form.dataset.tied || '{}');
    } catch {
      this.tied = {};
    }
    this.inputs = [...form.querySelectorAll('input[name]')];
    this.defaults = Object.fromEntries(this.inputs.map((input) => [input.name, Number(input.value)]));
    this.applied = { ...this.defaults };
    this.wanted = { ...this.defaults }; // the sizes last asked for: a second box changed builds on the first
    this.fields = this.inputs.map((input) => {
      const range = { min: Number(input.min || 1), max: Number(input.max || Infinity) };
      const field = numberField(input, {
        ...range,
        whole: true,
        apply: (v) => {
          const was = this.wanted[input.name];
          const follow = Object.keys(this.tied).filter((n) => this.tied[n] === input.name && this.wanted[n] === was);
          this.wanted = { ...this.wanted, [input.name]: v, ...Object.fromEntries(follow.map((n) => [n, v])) };
          request({ ...this.wanted });
        },
      });
      input.after(field.hint);
      return field;
    });
    this.status = Object.assign(document.createElement('p'), { className: 'kv-sizes-status' });
    this.status.setAttribute('role', 'status');
    form.append(this.status);
    form.addEventListener('submit', (e) => e.preventDefault());
    this.show(this.applied);
  }

  /** `sizes` limited to the form's names, in its order; null when one is missing or not a whole number ≥ 1 (≥ its
   * box's min, for a switch such as causal whose min is 0). */
  complete(sizes) {
    const out = {};
    for (const input of this.inputs) {
      const v = sizes[input.name];
      if (!Number.isInteger(v) || v < Math.min(1, Number(input.min || 1))) return null;
      out[input.name] = v;
    }
    return out;
  }

  /** `sizes` as a link gives them (a subset of the form's), each tied size it leaves out set equal to the size it
   * follows when the link names that one: #N=12 is N = N_kv = 12, as it was before N_kv was in the form. */
  linked(sizes) {
    const out = { ...sizes };
    for (const [name, to] of Object.entries(this.tied)) if (!(name in out) && to in out) out[name] = out[to];
    return out;
  }

  /** Whether `sizes` differ from the page's own. */
  changed(sizes) {
    return this.inputs.some((input) => sizes[input.name] !== this.defaults[input.name]);
  }

  /** The name of the scene file for `sizes`: N8-Br4-Bc4 (the form's order). */
  key(sizes) {
    return this.inputs.map((input) => `${input.name}${sizes[input.name]}`).join('-');
  }

  /** The URL of the prerendered scene for `sizes`, or null when it was not prerendered. */
  sceneURL(sizes) {
    const key = this.key(sizes);
    return this.prerendered.has(key) ? new URL(`${this.prefix}${key}.json`, document.baseURI).href : null;
  }

  /** The figure shows `sizes` now: the boxes say so, even the one the reader is in (a request answers the latest
   * value typed, so it shows that value; sizes from the URL or a run of the editors show theirs). */
  show(sizes) {
    this.applied = { ...this.applied, ...(this.complete(sizes) || {}) };
    this.wanted = { ...this.applied };
    this.inputs.forEach((input, i) => {
      const v = this.applied[input.name];
      this.fields[i].show(v);
      if (Number(input.value) !== v || input.value === '') input.value = String(v);
    });
    this.form.dataset.applied = this.key(this.applied);
  }

  /** Say `text` (busy: the figure is on its way) under the form; '' clears it. */
  say(text, busy = false) {
    this.status.textContent = text;
    this.form.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  /** Show what is applied again in every box (after a request failed). */
  revert() {
    this.show(this.applied);
  }
}
