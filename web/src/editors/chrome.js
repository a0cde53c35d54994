// What surrounds an editor: the bar above it (title, "edited", status, Run, Run all, Reset, Copy, Stop, time limit)
// and the output below it (what it printed, and a message: an error with its traceback, a stop, a summary), and the
// way out of the code for a keyboard (Tab indents there), shown while the code has the focus (editors.css). Copy
// puts the editor's code as it is now (the reader's edits) on the clipboard (page/clipboard.js).
import { numberField } from '../forms/number-field.js';
import { copyButton } from '../page/clipboard.js';
import { h as el } from '../lib/dom.js';
import { TAB_HINT } from './commands.js';
import { seconds } from './stages.js';

export const LIMIT_MIN_S = 1;
export const LIMIT_MAX_S = 600;

/** Build the bar and the output around `element`'s code. `actions`: {run, runAll, reset, stop, setLimit, code}
 * (code() is the editor's text now); `copyName`: the accessible name of its Copy ("Copy the code of editor 2"). */
export function buildChrome(element, title, limit, actions, copyName = 'Copy the code') {
  const button = (label, action, hint) => {
    const b = el('button', { type: 'button', class: `kv-editor-${action}`, title: hint }, label);
    b.addEventListener('click', () => actions[action]());
    return b;
  };
  const edited = el('span', { class: 'kv-editor-edited', title: "This code differs from the page's", hidden: true }, 'edited');
  const statusText = el('span', { class: 'kv-editor-status-text' });
  const progressBar = el('progress', { class: 'kv-editor-progress', 'aria-label': 'Python download', hidden: true });
  // (the time, kept anew five times a second, is shown and not read out: the live region says each stage once)
  const clock = el('span', { class: 'kv-editor-elapsed', 'aria-hidden': 'true', hidden: true });
  const status = el('span', { class: 'kv-editor-status', 'aria-live': 'polite' }, progressBar, statusText, clock);
  const runButton = button('Run', 'run', 'Run this editor and every one before it, in order (Ctrl/Cmd+Enter)');
  const runAllButton = button('Run all', 'runAll', 'Run every editor on the page, in order');
  const resetButton = button('Reset', 'reset', "Back to the page's code");
  const copy = el('button', { type: 'button', class: 'kv-editor-copy', 'aria-label': copyName }, 'Copy');
  copyButton(copy, () => actions.code());
  const stopButton = button('Stop', 'stop', 'Stop Python (it restarts, fresh)');
  stopButton.disabled = true;
  const limitInput = el('input', { type: 'number', step: 1, value: limit, class: 'kv-editor-limit' });
  const limits = { min: LIMIT_MIN_S, max: LIMIT_MAX_S, whole: true, unit: 's' };
  const limitField = numberField(limitInput, { ...limits, apply: actions.setLimit });
  limitField.show(limit);
  const limitHint = 'A run that takes longer is stopped';
  const limitLabel = el('label', { class: 'kv-editor-limit-label', title: limitHint }, 'time limit ', limitInput, ' s');
  const bar = el(
    'div',
    { class: 'kv-editor-bar' },
    el('span', { class: 'kv-editor-title' }, title),
    edited,
    status,
    el('span', { class: 'kv-editor-actions' }, runButton, runAllButton, resetButton, copy, stopButton, limitLabel),
    limitField.hint,
  );
  const stdout = el('pre', { class: 'kv-editor-stdout', hidden: true });
  const message = el('div', { class: 'kv-editor-message', role: 'status', hidden: true });
  const output = el('div', { class: 'kv-editor-output' }, stdout, message);
  // (read out from the code itself, as its description: shown, not said twice)
  const keys = el('div', { class: 'kv-editor-keys', 'aria-hidden': 'true' }, el('span', {}, TAB_HINT));
  element.prepend(bar);
  element.append(keys, output); // (under the code: the hint shows at its foot)

  return {
    setEdited(on) {
      edited.hidden = !on;
      element.classList.toggle('kv-edited', on);
    },
    /** Python's status: `text`; when `progress` ({loaded, total} bytes) is given, a bar; when `elapsed` (ms) is,
     * the time beside it; `failed` marks it. */
    setStatus({ text, progress = null, failed = false, elapsed = undefined }) {
      if (statusText.textContent !== text) statusText.textContent = text;
      progressBar.hidden = !progress;
      if (progress) Object.assign(progressBar, { max: progress.total, value: progress.loaded });
      status.setAttribute('aria-busy', progress ? 'true' : 'false'); // the bar's many steps are not read out
      status.dataset.failed = failed ? 'true' : 'false';
      clock.hidden = elapsed === undefined;
      if (elapsed !== undefined) clock.textContent = ` · ${seconds(elapsed)}`;
    },
    setBusy(busy) {
      runButton.disabled = runAllButton.disabled = busy;
      stopButton.disabled = !busy;
      element.classList.toggle('kv-running', busy);
    },
    setLimit(seconds) {
      limitField.show(seconds);
    },
    /** What the editor printed ('' hides it). */
    showStdout(text) {
      stdout.textContent = text;
      stdout.hidden = !text;
    },
    /** A message under the editor: kind 'info' or 'error'; `detail`, when given, is shown folded (a traceback). */
    showMessage(text, kind = 'info', detail = '') {
      message.replaceChildren(el('span', { class: 'kv-editor-message-text' }, text));
      if (detail) message.append(el('details', {}, el('summary', {}, 'Traceback'), el('pre', {}, detail)));
      message.dataset.kind = kind;
      message.setAttribute('role', kind === 'error' ? 'alert' : 'status');
      message.hidden = !text;
    },
  };
}
