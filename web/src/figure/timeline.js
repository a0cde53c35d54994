// The steps of a step list as states of the diagram. Pure data, no DOM.
//
// A step is {label, start, move, end, stagger}; each of start/move/end is a Diff, a list of [item index, {field:
// value}]. Playing step k from the figure after step k-1 applies `start`, animates to `move`, then settles on `end`;
// so the figure after step k is the initial items with every diff of steps 1..k folded in. States share the item
// objects a diff did not touch, so a renderer can skip unchanged items by identity.

/** `items` with `diff` applied: a new array whose changed entries are new objects; `items` itself is not touched. */
export function applyDiff(items, diff) {
  if (!diff || diff.length === 0) return items;
  const out = items.slice();
  for (const [index, fields] of diff) out[index] = { ...out[index], ...fields };
  return out;
}

export class Timeline {
  /** `items`: the diagram's initial items (the figure at step 0); `steps`: the step list's steps. */
  constructor(items, steps) {
    this.steps = steps;
    this.states = [items];
  }

  get last() {
    return this.steps.length - 1;
  }

  /** The items once step k has settled (k from 0 to last), folded from the nearest state already known. */
  state(k) {
    for (let n = this.states.length; n <= k; n++) this.states.push(this.phases(n).end);
    return this.states[k];
  }

  /** Step k's phases: `from` (the figure after k-1), `start`, `move` (where the animation goes), `end`; and the
   * items that move, each with its delay as a fraction of the move (its stagger entry n/count, else 0). */
  phases(k) {
    const step = this.steps[k];
    const from = this.state(k - 1);
    const start = applyDiff(from, step.start);
    const move = applyDiff(start, step.move);
    const end = applyDiff(move, step.end);
    const delays = new Map((step.stagger || []).map(([index, n, count]) => [index, n / count]));
    const moving = [...new Set((step.move || []).map(([index]) => index))].map((index) => ({
      index,
      delay: delays.get(index) || 0,
    }));
    return { from, start, move, end, moving };
  }
}
