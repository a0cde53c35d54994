// When things run, the one scheduler of the web code: a task, a pause, the page's quiet moments, and holds on the
// figure's step animations.
//
//   nextTask() / sleep(ms)        a promise resolved in the next task / after ms
//   quietMoments(figure)          {quiet, reached}: quiet() resolves in a task of its own when no step of `figure`
//                                 animates and the browser is idle, or, once the reader has reached for an editor
//                                 (focus or pointer in a .kv-editor; `reached` resolves then), in the next task
//   new StepHolds()               hold(promise): start no step's animation until it settles; held(): the promise
//                                 to wait for, or null
//
// The runtime (main.js) makes the page's quiet moments and hands them to the editors bundle, a bundle of its own
// (no state shared between bundles), as window.kernelviz.quiet.

const IDLE_TIMEOUT_MS = 3000; // the longest a quiet moment waits for the browser to idle

/** A promise resolved in the next task: quiet() where there is no runtime to say when the page is quiet. */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A promise resolved after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise resolved when the browser is idle (at most IDLE_TIMEOUT_MS from now). */
const idle = () =>
  new Promise((resolve) =>
    'requestIdleCallback' in window ? requestIdleCallback(resolve, { timeout: IDLE_TIMEOUT_MS }) : setTimeout(resolve, 50),
  );

/** {quiet, reached} for `figure` (null: none): see above. */
export function quietMoments(figure) {
  let hurry = false;
  const reached = new Promise((resolve) => {
    const reach = (e) => {
      if (!e.target.closest?.('.kv-editor')) return;
      hurry = true;
      resolve();
    };
    document.addEventListener('focusin', reach);
    document.addEventListener('pointerdown', reach);
  });
  const quiet = async () => {
    while (!hurry) {
      await Promise.race([figure ? figure.still() : null, reached]);
      await Promise.race([idle(), reached.then(nextTask)]);
      if (!hurry && !figure?.player?.animating) return;
    }
    return nextTask();
  };
  return { quiet, reached };
}

/** Holds on the step animations while the page runs a task it cannot split: the step is still shown at once; its
 * movement waits until every promise held settles, fulfilled or not. */
export class StepHolds {
  #held = null;

  /** Start no step's animation until `promise` settles (and any hold before it). */
  hold(promise) {
    const held = Promise.allSettled([this.#held, promise]).then(() => {
      if (this.#held === held) this.#held = null;
    });
    this.#held = held;
  }

  /** The promise a step's animation waits for, or null when nothing is held. */
  held() {
    return this.#held;
  }
}
