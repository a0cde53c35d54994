// Python in a module Web Worker (web/src/entries/worker.js): start it, run sources in it, stop it.
//
// Nothing is fetched until Python is asked for: start() (the reader reached for Python: a pointer in an editor, an
// edit, Run, a size not drawn in advance), or a run, which starts it. The worker then loads Pyodide and kernelviz,
// posting how many bytes it has fetched; a run waits for that. A run's time limit counts from when the worker
// starts running it, not while Python loads. Stopping (the Stop button or the limit) terminates the worker, which
// is the only way to interrupt Python without shared memory, and starts a fresh one at once.
//
// States, reported to `onState(state, detail)`: 'idle' (not asked for yet), 'loading' (detail: {loaded, total}
// bytes, as the download goes), 'ready' (detail: load time in ms), 'running', 'failed' (detail: why; start() or
// the next run tries again). Within loading and running, `timeline` says the stage (stages.js): downloading,
// starting Python, loading the page's code (as the worker says), running; each change of stage is reported too.

import { STAGES } from './stages.js';

const order = (stage) => STAGES.findIndex(([s]) => s === stage);

export class Python {
  #url;
  /** onState(state, detail): follows every change of state (see the top of this file); may be set at any time. */
  onState;
  /** {loaded, total}: the bytes of Python downloaded so far, of the total (as the worker last said). */
  progress = { loaded: 0, total: 0 };
  #worker = null;
  #pending = null; // {id, resolve, started, timer, limitS}
  #seq = 0;
  state = 'idle';
  /** Why Python failed to start, the last time it did. */
  failure = null;
  /** [{stage, at}]: the stages of Python's start and of the run in progress, as they began (stages.js). */
  timeline = [];

  constructor(workerURL, onState = () => {}) {
    this.#url = workerURL;
    this.onState = onState;
  }

  #setState(state, detail) {
    this.state = state;
    this.onState(state, detail);
  }

  /** Start loading Python, unless it is loading, loaded or running already. Returns whether this call started it. */
  start() {
    if (this.#worker) return false;
    this.#start();
    return true;
  }

  // A new stage of the timeline (once), reported as a change of the state it is in.
  #stage(stage) {
    const later = (t) => t.stage === stage || (order(t.stage) > order(stage) && order(stage) >= 0);
    if (this.timeline.some(later)) return; // seen already, or passed
    this.timeline.push({ stage, at: performance.now() });
    if (stage !== 'ready') this.onState(this.state, this.state === 'loading' ? this.progress : undefined);
  }

  #start() {
    const startedAt = performance.now();
    performance.mark('kv:python-start');
    this.timeline = [{ stage: 'download', at: startedAt }];
    this.#setState('loading', { loaded: 0, total: 0 });
    const worker = new Worker(this.#url, { type: 'module' });
    this.#worker = worker;
    worker.onmessage = ({ data }) => {
      if (worker !== this.#worker) return;
      if (data.type === 'progress') {
        this.progress = { loaded: data.loaded, total: data.total };
        if (this.state === 'loading') this.#setState('loading', this.progress);
      } else if (data.type === 'stage') {
        this.#stage(data.stage);
      } else if (data.type === 'ready') {
        performance.mark('kv:python-ready', { detail: { ms: data.ms, phases: data.phases, bytes: data.bytes } });
        if (!this.#pending) this.#stage('ready'); // (a run waiting goes on to its own stage at once)
        this.#setState(this.#pending?.started ? 'running' : 'ready', performance.now() - startedAt);
      } else if (data.type === 'failed') {
        this.#fail(data.message);
      } else if (data.type === 'crashed') {
        this.#crash(data.message);
      } else if (data.type === 'started' && data.id === this.#pending?.id) {
        this.#pending.started = performance.now();
        this.#pending.timer = setTimeout(() => this.stop('limit'), this.#pending.limitS * 1000);
        this.timeline.push({ stage: 'run', at: this.#pending.started });
        this.#setState('running');
      } else if (data.type === 'result' && data.id === this.#pending?.id) {
        this.#settle(({ started }) => ({ result: data.result, ms: performance.now() - started, pythonMs: data.ms }));
        this.#setState('ready');
      }
    };
    worker.onerror = (event) => {
      if (worker === this.#worker) this.#fail(event.message || 'the Python worker failed to start');
    };
  }

  // The run in progress, if any, ends: it resolves to outcome(pending).
  #settle(outcome) {
    const pending = this.#pending;
    this.#pending = null;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.resolve(outcome(pending));
  }

  #fail(message) {
    this.failure = message;
    this.#worker?.terminate();
    this.#worker = null;
    this.#settle(() => ({ failed: message }));
    this.#setState('failed', message);
  }

  // Python died during a run: say so, and start a fresh one (its loading worked, so it will again).
  #crash(message) {
    this.#restart(() => ({ failed: `Python crashed (${message}); a fresh one is starting` }));
  }

  // End the worker and start a fresh one; the run in progress, if any, resolves to outcome(pending).
  #restart(outcome) {
    this.#worker?.terminate();
    this.#worker = null;
    this.#settle(outcome);
    this.#start();
  }

  get running() {
    return this.#pending !== null;
  }

  /**
   * Run `sources` ([{code, name, first_line}]) with the runner, `sizes` ({N: 12, ...}, optional) overriding the
   * kernel's figlib.sizes defaults; Python starts first if it has not (or failed). Resolves (never rejects) to
   * {result, ms} with the runner's RunResult as a dict, {stopped: {reason: 'stop' | 'limit', seconds}}, or
   * {failed: message}.
   */
  run(sources, limitS, sizes = null) {
    if (this.#pending) return Promise.resolve({ failed: 'a run is already in progress' });
    if (!this.#worker) this.#start();
    else if (this.state !== 'loading') this.timeline = []; // Python has started: the run's stage alone
    const id = ++this.#seq;
    return new Promise((resolve) => {
      this.#pending = { id, resolve, started: null, timer: null, limitS };
      this.#worker.postMessage({ type: 'run', id, sources, sizes });
    });
  }

  /** Stop the run in progress (if any) now, and start a fresh Python (if one had started). `reason`: 'stop' or
   * 'limit'. */
  stop(reason = 'stop') {
    if (!this.#worker && !this.#pending) return;
    this.#restart((pending) => {
      const seconds = pending.started ? (performance.now() - pending.started) / 1000 : 0;
      return { stopped: { reason, seconds } };
    });
  }
}
