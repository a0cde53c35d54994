// The editing an editor block adds to a plain CodeMirror view, all from CodeMirror's own packages: undo history,
// the default keys (Enter keeps Python's indentation), Tab / Shift-Tab indent, brackets close themselves, Ctrl/Cmd+F
// searches, and other occurrences of the selection are highlighted.
// Tab is bound, so a keyboard user leaves the editor with Escape then Tab (or Ctrl-m / Shift-Alt-m on macOS, which
// toggles it), as CodeMirror provides; the content says so to assistive technology, and the chrome shows it while the
// code has the focus (chrome.js).
import { EditorView, keymap } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';

export const TAB_HINT = 'Tab indents; press Escape then Tab to move focus out of the editor.';

/** The extensions: history, bracket closing, selection matches, the keys, and the Tab hint. */
export const editing = [
  history(),
  closeBrackets(),
  highlightSelectionMatches(),
  keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
  EditorView.contentAttributes.of({ 'aria-description': TAB_HINT }),
];
