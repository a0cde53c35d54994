// A free-text number control that never disagrees with what it applies. Its range is stated next to it (a hint,
// e.g. "1 to 1024 KiB"). A value typed in range is applied as it is typed; a value out of range or malformed is
// refused: what was applied before the edit began is applied again, and the hint says what was refused and what
// is applied. When the edit ends (Enter, or focus leaves) the box shows the applied value again.
//
//   const field = numberField(input, {min, max, whole, unit, apply});
//   parent.append(input, field.hint);   // the hint goes next to the control (a <span class="kv-range"> already
//                                       // there, written with the page, is taken as the hint)
//   field.show(value);                  // what is applied now (from the owner's state); the box follows unless
//                                       // the reader is typing in it
//   field.setRange(min, max);           // a range that depends on other settings
//
// The hint carries data-state="ok" or "refused"; the input aria-invalid and aria-describedby the hint.

let fields = 0;
const BUNDLE = Math.random().toString(36).slice(2, 8); // each bundle has its own copy of this module: ids differ

const signed = (v) => String(v).replace('-', '−');

/** The range in words: "1 to 1024 KiB", "−2000 to 2000 px", "≥ 0". */
function rangeText(min, max, unit) {
  const u = unit ? ` ${unit}` : '';
  if (Number.isFinite(min) && Number.isFinite(max)) return `${signed(min)} to ${signed(max)}${u}`;
  return Number.isFinite(min) ? `≥ ${signed(min)}${u}` : `≤ ${signed(max)}${u}`;
}

/** Why `text` is refused for a field of [min, max] (whole: integers only), or null when it is a valid value. */
export function refusal(text, { min, max, whole = false, bad = false, unit = '' }) {
  const range = rangeText(min, max, unit);
  if (bad || text.trim() === '' || !Number.isFinite(Number(text))) return `not a number: allowed ${range}`;
  const v = Number(text);
  if (whole && !Number.isInteger(v)) return `${text} is not a whole number: allowed ${range}`;
  if (v < min) return `${text} is below ${min}: allowed ${range}`;
  if (v > max) return `${text} is above ${max}: allowed ${range}`;
  return null;
}

/**
 * Bind `input` (an <input type=number>) to `apply(value)`: in-range values are applied as typed, others refused.
 * `min`, `max`: the range (inclusive; ±Infinity for none); `whole`: integers only; `unit`: said in the hint.
 * Returns {hint, show(value), setRange(min, max)}.
 */
export function numberField(input, { min, max, whole = false, unit = '', apply }) {
  const range = { min, max };
  let applied = null; // the value the owner applies now
  let before = null; // the value applied when the edit began
  const written = input.nextElementSibling; // a hint the page was built with, in its place from the first paint
  const hint = written?.classList?.contains('kv-range') ? written : document.createElement('span');
  hint.className = 'kv-range';
  hint.id = `kv-allowed-${BUNDLE}-${++fields}`;
  hint.setAttribute('aria-live', 'polite');
  input.setAttribute('aria-describedby', hint.id);
  input.inputMode = whole ? 'numeric' : 'decimal';

  const say = (state, text) => {
    hint.dataset.state = state;
    hint.textContent = text;
    input.setAttribute('aria-invalid', state === 'refused' ? 'true' : 'false');
  };
  const fmt = (v) => `${v}${unit ? ` ${unit}` : ''}`;
  const plain = () => say('ok', rangeText(range.min, range.max, unit));
  const setAttrs = () => {
    if (Number.isFinite(range.min)) input.min = String(range.min);
    else input.removeAttribute('min');
    if (Number.isFinite(range.max)) input.max = String(range.max);
    else input.removeAttribute('max');
  };

  input.addEventListener('focus', () => {
    before = applied;
  });
  input.addEventListener('input', () => {
    before ??= applied;
    const why = refusal(input.value, { ...range, whole, unit, bad: input.validity?.badInput });
    if (why === null) {
      plain();
      const v = Number(input.value);
      if (v !== applied) apply(v);
      applied = v;
      return;
    }
    if (before !== null && applied !== before) {
      applied = before;
      apply(before);
    }
    say('refused', `${why}; ${fmt(applied)} applied`);
  });
  input.addEventListener('change', () => {
    before = null;
    if (input.getAttribute('aria-invalid') !== 'true') return;
    const why = hint.textContent;
    input.value = String(applied);
    say('refused', why); // still says what was refused, now beside the applied value
    input.setAttribute('aria-invalid', 'false');
  });

  setAttrs();
  plain();
  return {
    hint,
    show(value) {
      applied = value;
      if (document.activeElement !== input) {
        input.value = String(value);
        if (hint.dataset.state === 'ok') plain();
      }
    },
    setRange(lo, hi) {
      if (lo === range.min && hi === range.max) return;
      Object.assign(range, { min: lo, max: hi });
      setAttrs();
      if (hint.dataset.state === 'ok') plain();
    },
  };
}
