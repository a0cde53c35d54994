// The editing commands an editor needs beyond what the browser gives a contenteditable: undo and redo, Enter that
// keeps Python's indentation, and Tab / Shift-Tab that indent. (@codemirror/commands would provide these; it is not
// among the installed packages, so this is the small subset the editors use.)
import { Annotation, EditorSelection, StateField } from '@codemirror/state';
import { getIndentation, getIndentUnit, IndentContext, indentString } from '@codemirror/language';

const fromHistory = Annotation.define(); // 'undo' | 'redo'
const GROUP_MS = 500; // typing or deleting within this long of the last change is undone with it
const DEPTH = 200;

// done / undone: [{changes, selection, event}] where `changes` takes the document back (or forward) one entry and
// `selection` is the selection to restore with it.
const history = StateField.define({
  create: () => ({ done: [], undone: [], time: 0 }),
  update(h, tr) {
    if (!tr.docChanged) return h;
    const entry = { changes: tr.changes.invert(tr.startState.doc), selection: tr.startState.selection };
    const source = tr.annotation(fromHistory);
    if (source === 'undo') return { done: h.done.slice(0, -1), undone: [...h.undone, entry], time: 0 };
    if (source === 'redo') return { done: [...h.done, entry], undone: h.undone.slice(0, -1), time: 0 };
    const event = tr.isUserEvent('input.type') ? 'type' : tr.isUserEvent('delete') ? 'delete' : null;
    const last = h.done[h.done.length - 1];
    const now = Date.now();
    if (last && event && last.event === event && now - h.time < GROUP_MS) {
      const merged = { changes: entry.changes.compose(last.changes), selection: last.selection, event };
      return { done: [...h.done.slice(0, -1), merged], undone: [], time: now };
    }
    return { done: [...h.done, { ...entry, event }].slice(-DEPTH), undone: [], time: now };
  },
});

function replay(stack, source) {
  return (view) => {
    const entries = view.state.field(history)[stack];
    const entry = entries[entries.length - 1];
    if (!entry) return false;
    view.dispatch({
      changes: entry.changes,
      selection: entry.selection,
      annotations: fromHistory.of(source),
      userEvent: source,
      scrollIntoView: true,
    });
    return true;
  };
}

export const undo = replay('done', 'undo');
export const redo = replay('undone', 'redo');

/** Enter: a new line indented as the syntax says (after `def f():` one unit more). */
export function newlineAndIndent(view) {
  const { state } = view;
  const tr = state.changeByRange((range) => {
    const cx = new IndentContext(state, { simulateBreak: range.from });
    const line = state.doc.lineAt(range.from);
    const indent = getIndentation(cx, range.from) ?? /^\s*/.exec(line.text)[0].length;
    const insert = '\n' + indentString(state, indent);
    return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
  });
  view.dispatch(state.update(tr, { scrollIntoView: true, userEvent: 'input' }));
  return true;
}

function selectedLines(state) {
  const lines = new Map();
  for (const range of state.selection.ranges) {
    const last = state.doc.lineAt(range.to).number;
    for (let n = state.doc.lineAt(range.from).number; n <= last; n++) lines.set(n, state.doc.line(n));
  }
  return [...lines.values()];
}

/** Tab: with no selection, spaces to the next indent stop; with one, every selected line one unit right. */
export function indentMore(view) {
  const { state } = view;
  const unit = getIndentUnit(state);
  if (state.selection.ranges.every((r) => r.empty)) {
    const tr = state.changeByRange((range) => {
      const column = range.from - state.doc.lineAt(range.from).from;
      const insert = ' '.repeat(unit - (column % unit));
      return { changes: { from: range.from, insert }, range: EditorSelection.cursor(range.from + insert.length) };
    });
    view.dispatch(state.update(tr, { userEvent: 'input.indent' }));
    return true;
  }
  const changes = selectedLines(state).map((line) => ({ from: line.from, insert: ' '.repeat(unit) }));
  view.dispatch({ changes, userEvent: 'input.indent' });
  return true;
}

/** Shift-Tab: every selected line up to one unit left. */
export function indentLess(view) {
  const { state } = view;
  const unit = getIndentUnit(state);
  const changes = selectedLines(state)
    .map((line) => ({ from: line.from, to: line.from + Math.min(unit, /^ */.exec(line.text)[0].length) }))
    .filter((c) => c.to > c.from);
  if (changes.length) view.dispatch({ changes, userEvent: 'delete.dedent' });
  return true;
}

/** The history field and the keys: Mod-z / Mod-y / Shift-Mod-z, Enter, Tab, Shift-Tab. */
export const editing = [history];
export const editingKeys = [
  { key: 'Mod-z', run: undo, preventDefault: true },
  { key: 'Mod-y', run: redo, preventDefault: true },
  { key: 'Shift-Mod-z', run: redo, preventDefault: true },
  { key: 'Enter', run: newlineAndIndent },
  { key: 'Tab', run: indentMore },
  { key: 'Shift-Tab', run: indentLess },
];
