// One editor block: a CodeMirror view in place of the page's highlighted <pre>, with Python highlighting, line
// numbers, the page's theme, and the reader's edits kept in localStorage (restored on load, cleared by Reset).
// Mounting is paced, so that no step holds the main thread for long: the editor's state is built (CodeMirror parses
// the start of the code), the rest of the code is parsed a slice at a time, and the view replaces the <pre>, each
// step at a quiet moment of its own; the view then highlights all of the code from the start, with no parse left
// for CodeMirror to do in an idle callback of its own.
import { EditorState, Prec } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { bracketMatching, ensureSyntaxTree, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { python } from '@codemirror/lang-python';
import { buildChrome } from './chrome.js';
import { editing } from './commands.js';
import { clearEdit, loadEdit, saveEdit } from './store.js';
import { highlight, theme } from './theme.js';

const PARSE_SLICE_MS = 10; // the parse of the code, per quiet moment

/** Whether `update` changed only whitespace (an indent, a new line): not yet a reach for Python. */
export function whitespaceOnly(update) {
  const squeeze = (doc) => doc.toString().replace(/\s+/g, '');
  return squeeze(update.startState.doc) === squeeze(update.state.doc);
}

/**
 * Mount editor `spec` ({element, index, title, code, firstLine}) of page `page`, a step per `quiet()` (a promise
 * resolved in a new task at a quiet moment). `actions`: {run, runAll, stop, setLimit, changed} (run and runAll
 * receive this editor; changed({byReset, whitespace}) follows every change of the code: whether Reset made it, and
 * whether it changed only whitespace), `limit`: the time limit shown. Resolves to the editor's handle.
 */
export async function mountEditor(page, spec, actions, limit, quiet) {
  const saved = loadEdit(page, spec.index);
  const mounted = {}; // {handle, chrome, view}, as they come
  let state = editorState(page, spec, saved, actions, mounted);
  state = await parseInSlices(state, quiet);
  await quiet();
  mounted.chrome = chromeOf(spec, limit, actions, mounted);
  mounted.view = new EditorView({ state });
  mounted.view.setTabFocusMode(!saved || saved.code === spec.code); // a reader who edited before: Tab indents
  takePlaceOfStatic(spec.element, mounted.view);
  mounted.chrome.setEdited(Boolean(saved) && saved.code !== spec.code);
  if (saved && saved.base !== spec.code) {
    mounted.chrome.showMessage("Your edit is kept; the page's code has changed since you made it (Reset shows it).");
  }
  mounted.handle = editorHandle(page, spec, mounted.view, mounted.chrome);
  return mounted.handle;
}

/** The editor's state: the reader's saved code or the page's, with the editing, highlighting and keys, and a
 * listener that keeps each change (store.js) and tells `actions.changed`. */
function editorState(page, spec, saved, actions, mounted) {
  const { index, title, code: original } = spec;
  const runKeys = [
    { key: 'Mod-Enter', run: () => (actions.run(mounted.handle), true), preventDefault: true },
    { key: 'Shift-Mod-Enter', run: () => (actions.runAll(mounted.handle), true), preventDefault: true },
  ];
  return EditorState.create({
    doc: saved ? saved.code : original,
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightActiveLine(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      indentUnit.of('    '),
      python(),
      syntaxHighlighting(highlight),
      lintGutter(),
      EditorView.lineWrapping, // long lines (comments) wrap at the column's width: no sideways scroll
      editing,
      Prec.highest(keymap.of(runKeys)),
      theme,
      // tabindex: already a tab stop (contenteditable); said so that checkers see its scroller has focusable content
      EditorView.contentAttributes.of({ 'aria-label': `Python: ${title || `editor ${index + 1}`}`, tabindex: '0' }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        const code = update.state.doc.toString();
        saveEdit(page, index, code, original);
        mounted.chrome.setEdited(code !== original);
        const byReset = update.transactions.some((t) => t.isUserEvent('reset'));
        // Tab moves the focus on until the reader types here (commands.js); from then on it indents, until a Reset
        const typed = update.transactions.some((t) => t.docChanged && !t.isUserEvent('indent') && !t.isUserEvent('reset'));
        if (typed || byReset) update.view.setTabFocusMode(byReset && !typed);
        actions.changed?.({ byReset, whitespace: whitespaceOnly(update) });
      }),
    ],
  });
}

/** `state` with all of its code parsed, PARSE_SLICE_MS at a time, a quiet moment each. */
async function parseInSlices(state, quiet) {
  while (!ensureSyntaxTree(state, state.doc.length, PARSE_SLICE_MS)) await quiet();
  return state.update({}).state; // the state's syntax tree: all of the code, as just parsed
}

/** The bar and the output around the editor (chrome.js), bound to the editor's handle and view once they exist. */
function chromeOf(spec, limit, actions, mounted) {
  const { element, index, title } = spec;
  return buildChrome(element, title || `Editor ${index + 1}`, limit, {
    run: () => actions.run(mounted.handle),
    runAll: () => actions.runAll(mounted.handle),
    reset: () => mounted.handle.reset(),
    stop: () => actions.stop(),
    setLimit: actions.setLimit,
    code: () => mounted.view.state.doc.toString(),
  }, `Copy the code of editor ${index + 1}`);
}

/** Put `view` where the block's static <pre> was, taking the focus if the <pre> had it. */
function takePlaceOfStatic(element, view) {
  const shown = element.querySelector('pre');
  const hadFocus = Boolean(shown?.contains(document.activeElement)); // a keyboard reader reached the code first
  if (shown) shown.replaceWith(view.dom);
  else element.querySelector('.kv-editor-keys').before(view.dom);
  if (hadFocus) view.focus();
  element.classList.add('kv-editor-live');
}

/** The editor's handle: its code, whether it is edited, Reset, errors at a line, and clearing a run's output. */
function editorHandle(page, spec, view, chrome) {
  const { index, title, element, code: original } = spec;
  return {
    index,
    title,
    firstLine: spec.firstLine,
    element,
    view,
    chrome,
    code: () => view.state.doc.toString(),
    /** Whether the code differs from the page's. */
    edited: () => view.state.doc.toString() !== original,
    /** Back to the page's code (undoable), and forget the stored edit. */
    reset() {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: original }, userEvent: 'reset' });
      view.dispatch(setDiagnostics(view.state, []));
      clearEdit(page, index);
      chrome.setEdited(false);
      chrome.showMessage('');
    },
    /** Mark `line` (from 1; null for none) with `message` as an error, and say it under the editor. */
    showError(line, message, detail) {
      const doc = view.state.doc;
      const at = line == null ? null : doc.line(Math.min(Math.max(line, 1), doc.lines));
      const diagnostics = at ? [{ from: at.from, to: Math.max(at.to, at.from), severity: 'error', message }] : [];
      view.dispatch(setDiagnostics(view.state, diagnostics));
      if (at) view.dispatch({ effects: EditorView.scrollIntoView(at.from, { y: 'nearest' }) });
      chrome.showMessage(line == null ? message : `Line ${line}: ${message}`, 'error', detail);
    },
    clearRun() {
      view.dispatch(setDiagnostics(view.state, []));
      chrome.showStdout('');
      chrome.showMessage('');
    },
  };
}
