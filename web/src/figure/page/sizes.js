// The figure at the sizes the reader picks, from the size form or the URL (#N=12&Br=4&Bc=4&step=7). The scene at
// those sizes comes from the prerendered scene file when the figure shows the page's own code and the sizes were
// prerendered, else from Python running the page's editors with those sizes (Python is started, and the form says
// so, when it has not been). The figure keeps what it shows until the new scene is drawn: never a blank figure. A
// request overtaken by a newer one is dropped; one that fails puts the form back to what the figure shows, and
// says why.
import { readHash } from './hash.js';
import { sleep } from '../../lib/schedule.js';

const PYTHON_PAUSE_MS = 250; // typing "12" asks for 1 then 12: Python runs only the sizes still wanted after this

const describe = (sizes) =>
  Object.entries(sizes)
    .map(([name, v]) => `${name} = ${v}`)
    .join(', ');

export class Sizes {
  /**
   * `form`: the SizesForm; `figure`: the Figure; `python`: {loaded() -> the editors API or null, start() -> a
   * promise of the editors API (Python starting), or of null when the page has none}.
   */
  constructor(form, figure, python) {
    Object.assign(this, { form, figure, python });
    this.seq = 0;
    this.fromEdits = false; // the figure shows a run of code the reader edited: other sizes need Python
    this.chosen = false; // the reader picked the sizes shown (they go in the URL and in every run of the editors)
    this.linking = null; // the sizes of the URL, while the figure is being drawn at them (the URL keeps them)
    figure.urlSizes = () => this.linking || (this.chosen ? this.form.applied : null);
  }

  /** The sizes the figure shows. */
  shown() {
    return { ...this.form.applied };
  }

  /** The sizes the editors should run at: the reader's pick, or null for the kernel's own. */
  forRuns() {
    return this.chosen ? this.shown() : null;
  }

  /** A run of the editors drew the figure at `sizes` (the runner's RunResult.sizes), of edited code or not. */
  ran(sizes, edited) {
    this.fromEdits = Boolean(edited);
    if (sizes && Object.keys(sizes).length) this.form.show(sizes);
    this.form.say('');
  }

  /** The sizes the URL's `state` asks for, when they differ from those shown; else null. */
  linkedSizes(state) {
    if (!state) return null;
    const sizes = this.form.complete({ ...this.shown(), ...this.form.linked(state.sizes) });
    return sizes && this.form.key(sizes) !== this.form.key(this.shown()) ? sizes : null;
  }

  /** On load, before the step of the URL's `state` is shown at the page's sizes: the URL keeps its sizes. */
  hold(state) {
    this.linking = this.linkedSizes(state);
  }

  /** The URL's sizes and step (`state`, as readHash gives it; null: none): draw them (on load, when the hash
   * changes). */
  follow(state = readHash()) {
    if (!state) return;
    const sizes = this.linkedSizes(state);
    if (sizes) this.request(sizes, state.step, true);
    else if (state.step !== null && state.step !== this.figure.currentStep()) this.figure.goTo(state.step);
  }

  /** Draw the figure at `sizes` (all of the form's), then show `step` (null: the step kept by its key). `linked`:
   * they are the URL's, which keeps them while the figure is drawn (a step shown meanwhile writes them too). */
  async request(sizes, step = null, linked = false) {
    const seq = ++this.seq;
    const current = () => seq === this.seq;
    this.linking = linked ? sizes : null;
    const url = this.fromEdits ? null : this.form.sceneURL(sizes);
    try {
      const drawn = url ? await this.fetchScene(url, sizes, current) : await this.runPython(sizes, current);
      if (!drawn || !current()) return;
      this.linking = null;
      this.form.show(sizes);
      this.chosen = this.form.changed(sizes);
      this.form.say('');
      if (step !== null) this.figure.show(step);
      this.figure.announce();
    } catch (e) {
      if (!current()) return;
      this.linking = null;
      this.form.revert();
      this.form.say(`The figure stays at ${describe(this.shown())}: ${describe(sizes)} could not be drawn (${e.message}).`);
    }
  }

  async fetchScene(url, sizes, current) {
    this.form.say(`Drawing ${describe(sizes)}…`, true);
    const [response] = await Promise.all([fetch(url), this.figure.loadCheck()]); // the checker: not the page's Scene
    if (!response.ok) throw new Error(`${new URL(url).pathname}: HTTP ${response.status}`);
    const scene = await response.json();
    if (!current()) return false;
    if (!this.figure.setScene(scene)) throw new Error('its scene file is not a valid Scene');
    return true;
  }

  async runPython(sizes, current) {
    let api = this.python.loaded();
    if (!api || api.python.state === 'idle' || api.python.state === 'loading') {
      this.form.say(`${describe(sizes)} was not drawn in advance: Python is loading to draw it (a few seconds)…`, true);
      api ||= await this.python.start();
      if (!api && !document.querySelector('.kv-editor')) throw new Error('it needs Python, and this page has no editors');
      if (!api) throw new Error('it needs Python, which could not be started');
      api.python.start(); // fetched only now: a size not drawn in advance is a reach for Python
    } else {
      await sleep(PYTHON_PAUSE_MS);
    }
    if (!current()) return false;
    this.form.say(`Python is drawing ${describe(sizes)}…`, true);
    let outcome = await api.runAll({ sizes });
    while (!outcome.ok && outcome.failed === 'a run is already in progress' && current()) {
      await sleep(PYTHON_PAUSE_MS);
      outcome = await api.runAll({ sizes });
    }
    if (!current()) return false;
    if (!outcome.ok) {
      const why = outcome.failed || (outcome.stopped ? 'the run was stopped' : outcome.result?.error?.message);
      throw new Error(why || 'the kernel did not draw a figure; its editor says why');
    }
    return true;
  }
}
