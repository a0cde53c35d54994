// The phase stepper: the four phases as buttons, previous / play / next, the query tile i, and where j is.
// Arrow keys anywhere in the stepper step back and forth; Home and End jump to the ends of the walk.

import { numberField } from '../forms/number-field.js';
import { h, setText } from './dom.js';
import { PHASES } from './phases.js';

const PLAY_MS = 900;

function button(text, attrs) {
  const b = h('button', { type: 'button', ...attrs });
  setText(b, text);
  return b;
}

/** handlers: {goPhase(p), step(delta), goEnd(which), setI(i), playing: () => bool, togglePlay()} */
export function buildStepper(handlers) {
  const phaseButtons = PHASES.map((p, k) => {
    const b = button(`${k + 1}. ${p.title}`, { class: 'kvx-phase', 'data-phase': k, 'aria-pressed': 'false' });
    b.addEventListener('click', () => handlers.goPhase(k));
    return b;
  });
  const prev = button('◀ Previous', { class: 'kvx-prev', 'aria-label': 'Previous step' });
  const play = button('▶ Play', { class: 'kvx-play', 'aria-label': 'Play the steps' });
  const next = button('Next ▶', { class: 'kvx-next', 'aria-label': 'Next step' });
  prev.addEventListener('click', () => handlers.step(-1));
  next.addEventListener('click', () => handlers.step(1));
  play.addEventListener('click', () => handlers.togglePlay());

  const iInput = h('input', { type: 'number', id: 'kvx-i', min: 0, step: 1, inputmode: 'numeric' });
  const iLabel = h('label', { for: 'kvx-i' });
  setText(iLabel, 'query tile i');
  const iField = numberField(iInput, { min: 0, max: 0, whole: true, apply: (i) => handlers.setI(i) });
  const where = h('span', { class: 'kvx-where' });

  const element = h('div', { class: 'kvx-stepper', role: 'group', 'aria-label': 'Kernel phases' }, [
    h('div', { class: 'kvx-phases' }, phaseButtons),
    h('div', { class: 'kvx-transport' }, [prev, play, next, h('span', { class: 'kvx-i' }, [iLabel, iInput, iField.hint]), where]),
  ]);
  element.addEventListener('keydown', (e) => {
    if (e.target === iInput) return;
    const moves = { ArrowLeft: () => handlers.step(-1), ArrowRight: () => handlers.step(1) };
    moves.Home = () => handlers.goEnd('start');
    moves.End = () => handlers.goEnd('end');
    if (moves[e.key]) {
      e.preventDefault();
      moves[e.key]();
    }
  });

  function update(state, { Tr, visited, index, count }) {
    phaseButtons.forEach((b, k) => b.setAttribute('aria-pressed', String(k === state.phase)));
    // aria-disabled rather than disabled: a disabled button drops the keyboard focus at the end of the walk.
    prev.setAttribute('aria-disabled', String(index === 0));
    next.setAttribute('aria-disabled', String(index === count - 1));
    const playing = handlers.playing();
    setText(play, playing ? '❚❚ Pause' : '▶ Play');
    play.setAttribute('aria-label', playing ? 'Pause' : 'Play the steps');
    iField.setRange(0, Tr - 1);
    iField.show(state.i);
    const k = visited.indexOf(state.j);
    setText(where, state.phase === 0
        ? `step ${index + 1} of ${count}`
        : `K/V tile j = ${state.j} (${k + 1} of ${visited.length} visited) · step ${index + 1} of ${count}`);
  }

  return { element, update, PLAY_MS };
}
