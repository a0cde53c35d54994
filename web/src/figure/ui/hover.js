// The figure answers: pointing at a slot (a tile, a cell, a register, a carry) shows what it holds at the step shown
// now: its name, memory and owner, how it got there and the HBM bytes that took (its facts, which the figure library
// put on the slot's items: <g data-slot="name|memory|owner|bytes|how|step">, kernelviz/figlib/answers.py), and its values at the figure's sizes
// when the page has them (`values`, see ../page/answers-values.js). A mouse shows it while it hovers; a tap shows it
// and a tap elsewhere hides it; by keyboard the canvas is one stop (tabindex 0) whose arrow keys move from slot to
// slot (← → in reading order, ↑ ↓ to the nearest slot above or below), Escape hides. The panel is an aria-live
// region, so a screen reader hears what a keyboard reaches. Nothing is added to the SVG: the mark and the panel are
// HTML over the canvas. Listeners: onSlot(fn(name | null)) when the slot pointed at changes (the math follows it).
import { h } from '../../lib/dom.js';

const MEMORY = { h: 'HBM', s: 'shared memory', r: 'registers' };
const HOW = {
  r: (from) => `read from HBM: ${from}`,
  w: (from) => `written to HBM from ${from}`,
  W: () => 'written to HBM',
  x: (from) => `copied on chip from ${from}`,
  c: () => 'computed on chip',
  s: () => 'stale: computed from the tile before',
};

/** The facts of a slot's <g> (data-slot: name|memory|owner|bytes|how|step, kernelviz/figlib/answers.py) in words:
 * {slot, in, of, bytes, via, step}; null: not a slot. */
export function factsOf(g) {
  const fields = g?.dataset?.slot?.split('|');
  if (!fields || fields.length < 6) return null;
  const [slot, memory, of, bytes, how, step] = fields;
  const [code, from = ''] = how.split(/:(.*)/s);
  const facts = { slot, in: MEMORY[memory] ?? memory, of, bytes: Number(bytes) };
  if (how && HOW[code]) Object.assign(facts, { via: HOW[code](from), step: Number(step) });
  return facts;
}

function visible(g) {
  if (g.closest('[display="none"]')) return false;
  const shape = g.querySelector(':scope > rect:not([display="none"]), :scope > text:not([display="none"])');
  if (!shape) return false;
  const b = g.getBoundingClientRect();
  return b.width > 0.5 && b.height > 0.5;
}

/** A number as a reader reads it: 3 significant digits, −∞ and ∞ spelled. */
export function shown(x) {
  if (x === null || x === undefined) return '';
  if (x === '-inf' || x === -Infinity) return '−∞';
  if (x === 'inf' || x === Infinity) return '∞';
  if (typeof x !== 'number') return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return (a >= 1e4 || a < 1e-3 ? x.toExponential(2) : Number(x.toPrecision(3)).toString()).replace('-', '−');
}

/** Rows of a value (a number, a list, a matrix) as lines of text, at most 4 rows of 4 columns ("…" beyond). */
export function valueLines(v) {
  if (!Array.isArray(v)) return [shown(v)];
  const rows = Array.isArray(v[0]) ? v : [v];
  const cut = (xs) => xs.slice(0, 4).map(shown).join('  ') + (xs.length > 4 ? '  …' : '');
  const lines = rows.slice(0, 4).map(cut);
  if (rows.length > 4) lines.push(`… ${rows.length - 4} more row${rows.length > 5 ? 's' : ''}`);
  return lines;
}

export class Hover {
  /** `box`: the canvas's element (.kv-canvas); `svg()`: its SVG now; `step()`: the step shown; `values(step, name)`:
   * the values of slot `name` at `step` (undefined: the page has none). */
  constructor(box, { svg, step, values }) {
    Object.assign(this, { box, svg, step, values });
    this.selected = null; // the slot's name shown now
    this.pinned = false; // shown by a tap or a key: stays until a tap elsewhere, Escape or blur
    this.listeners = [];
    this.panel = null;
    this.mark = null;
    box.addEventListener('pointermove', (e) => e.pointerType === 'mouse' && !this.pinned && this.point(e.target));
    box.addEventListener('pointerleave', (e) => e.pointerType === 'mouse' && !this.pinned && this.hide());
    box.addEventListener('click', (e) => this.tap(e));
    document.addEventListener('click', (e) => this.pinned && !box.contains(e.target) && this.hide());
  }

  /** The canvas became `svg` (a new scene): make it one keyboard stop. */
  attach(svg) {
    if (!svg || svg.$hover) return;
    svg.$hover = true;
    svg.setAttribute('tabindex', '0');
    svg.setAttribute('aria-describedby', this.ensurePanel().id);
    svg.addEventListener('keydown', (e) => this.key(e));
    svg.addEventListener('focus', () => {
      if (!this.selected) this.say('Arrow keys: the figure’s tiles one by one, with what they hold; + − 0: zoom; Shift + arrows: pan.');
    });
    svg.addEventListener('blur', () => this.pinned && this.hide());
  }

  onSlot(fn) {
    this.listeners.push(fn);
  }

  ensurePanel() {
    if (!this.panel) {
      this.panel = h('div', { class: 'kv-answer', id: `kv-answer-${Math.random().toString(36).slice(2, 8)}`, role: 'status', 'aria-live': 'polite', hidden: true });
      this.mark = h('div', { class: 'kv-answer-mark', 'aria-hidden': 'true', hidden: true });
      this.box.append(this.mark, this.panel);
    }
    return this.panel;
  }

  slots() {
    const svg = this.svg();
    return svg ? [...svg.querySelectorAll('g[data-slot]')].filter(visible) : [];
  }

  /** The <g> that draws slot `name` now (what it holds, else its frame). */
  find(name) {
    const all = this.slots().filter((g) => factsOf(g)?.slot === name);
    return all.find((g) => factsOf(g).via !== undefined || g.querySelector('text')) ?? all.at(-1) ?? null;
  }

  point(target) {
    const g = target?.closest?.('g[data-slot]');
    if (g && this.svg()?.contains(g)) this.show(g);
    else if (this.selected) this.hide();
  }

  tap(e) {
    if (e.pointerType === 'mouse' && !this.pinned) return; // a mouse shows on hover
    const g = e.target.closest?.('g[data-slot]');
    if (g) {
      this.pinned = true;
      this.show(g);
    } else if (!e.target.closest?.('.kv-answer')) this.hide();
  }

  /** Show what slot `g` holds now. */
  show(g) {
    const facts = factsOf(g);
    if (!facts) return;
    const changed = facts.slot !== this.selected;
    this.selected = facts.slot;
    this.ensurePanel();
    this.panel.replaceChildren(...this.lines(facts).map((line, i) => h(i ? 'div' : 'strong', {}, line)));
    this.panel.hidden = false;
    this.place(g);
    if (changed) for (const fn of this.listeners) fn(facts.slot);
  }

  lines(facts) {
    const head = [facts.slot, facts.in, facts.of].filter(Boolean).join(' · ');
    const out = [head];
    if (facts.via) out.push(`${facts.via}${facts.step ? ` at step ${facts.step}` : ''} · ${facts.bytes} B over HBM`);
    else out.push(facts.in === 'HBM' ? `${facts.bytes} B in HBM` : 'holds nothing yet');
    const empty = !facts.via && facts.in !== 'HBM'; // on chip and nothing came yet: no value, whatever its name held
    const v = empty ? undefined : this.values(this.step(), facts.slot);
    if (v === undefined) return out;
    const lines = valueLines(v);
    const rows = Array.isArray(v) ? (Array.isArray(v[0]) ? `${v.length} × ${v[0].length}` : `${v.length}`) : '';
    if (lines.length === 1 && !Array.isArray(v)) return [...out, `value: ${lines[0]}`];
    return [...out, `values (${rows}):`, ...lines];
  }

  place(g) {
    const box = this.box.getBoundingClientRect();
    const b = g.getBoundingClientRect();
    Object.assign(this.mark.style, { left: `${b.left - box.left - 2}px`, top: `${b.top - box.top - 2}px`, width: `${b.width + 4}px`, height: `${b.height + 4}px` });
    this.mark.hidden = false;
    const [below, height] = [b.bottom - box.top + 6, this.panel.offsetHeight];
    const above = b.top - box.top - 6 - height; // under the slot if it fits in the canvas, else over it, else where it fits
    const top = below + height <= box.height ? below : above >= 0 ? above : Math.max(0, box.height - height);
    const left = Math.min(Math.max(0, b.left - box.left), Math.max(0, box.width - this.panel.offsetWidth));
    Object.assign(this.panel.style, { left: `${left}px`, top: `${top}px` });
  }

  /** Mark every slot named `name` (a matrix's cells too: "Sij" marks "Sij 0,1", ...), as the math asks (ui/symbols.js);
   * null unmarks. Returns how many slots it marked. */
  highlight(name) {
    this.ensurePanel();
    this.link ??= this.box.appendChild(h('div', { class: 'kv-answer-link', 'aria-hidden': 'true', hidden: true }));
    const found = name ? this.slots().filter((g) => { const n = factsOf(g).slot; return n === name || n.startsWith(`${name} `); }) : [];
    this.link.hidden = !found.length;
    this.box.dataset.linked = found.length ? name : '';
    if (!found.length) return 0;
    const r = this.box.getBoundingClientRect();
    const bs = found.map((g) => g.getBoundingClientRect());
    const [l, t] = [Math.min(...bs.map((b) => b.left)), Math.min(...bs.map((b) => b.top))];
    const [rr, bb] = [Math.max(...bs.map((b) => b.right)), Math.max(...bs.map((b) => b.bottom))];
    Object.assign(this.link.style, { left: `${l - r.left - 3}px`, top: `${t - r.top - 3}px`, width: `${rr - l + 6}px`, height: `${bb - t + 6}px` });
    return found.length;
  }

  say(words) {
    this.ensurePanel();
    this.panel.replaceChildren(h('div', {}, words));
    this.panel.hidden = false;
    this.mark.hidden = true;
    Object.assign(this.panel.style, { left: '0px', top: '0px' });
  }

  hide() {
    this.pinned = false;
    if (this.panel) this.panel.hidden = this.mark.hidden = true;
    if (this.selected !== null) {
      this.selected = null;
      for (const fn of this.listeners) fn(null);
    }
  }

  /** The step changed, or the drawing moved: show the selected slot as it is now. */
  refresh() {
    if (this.box.dataset.linked) this.highlight(this.box.dataset.linked); // (the math's mark follows its slot)
    if (!this.selected) return;
    const g = this.find(this.selected);
    if (g) this.show(g);
    else this.hide();
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 'down', ArrowUp: 'up' };
    if (e.key === 'Escape' && this.selected) {
      this.hide();
      e.preventDefault();
      return;
    }
    if (!(e.key in moves)) return;
    e.preventDefault(); // (not the previous / next step: bindKeys leaves a handled key alone)
    const order = this.slots()
      .map((g) => ({ g, b: g.getBoundingClientRect(), name: factsOf(g).slot }))
      .filter((s, i, all) => all.findIndex((t) => t.name === s.name) === i)
      .sort((a, b) => Math.round(a.b.top / 8) - Math.round(b.b.top / 8) || a.b.left - b.b.left);
    if (!order.length) return;
    const at = order.findIndex((s) => s.name === this.selected);
    let next;
    if (at < 0) next = order[0];
    else if (typeof moves[e.key] === 'number') next = order[(at + moves[e.key] + order.length) % order.length];
    else next = nearest(order, order[at], moves[e.key]) ?? order[at];
    this.pinned = true;
    this.show(this.find(next.name) ?? next.g); // what the slot holds now, as a pointer at it shows, not its frame
  }
}

/** The slot of `order` nearest to `from` straight above ('up') or below ('down') it. */
function nearest(order, from, way) {
  const cy = (s) => s.b.top + s.b.height / 2;
  const cx = (s) => s.b.left + s.b.width / 2;
  const ahead = order.filter((s) => (way === 'down' ? cy(s) > cy(from) + 2 : cy(s) < cy(from) - 2));
  const cost = (s) => Math.abs(cy(s) - cy(from)) + 2 * Math.abs(cx(s) - cx(from));
  return ahead.sort((a, b) => cost(a) - cost(b))[0];
}
