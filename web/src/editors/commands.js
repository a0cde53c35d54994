// The editing an editor block adds to a plain CodeMirror view, all from CodeMirror's own packages: undo history,
// the default keys (Enter keeps Python's indentation), Tab / Shift-Tab indent, brackets close themselves, Ctrl/Cmd+F
// searches, and other occurrences of the selection are highlighted.
// Tab moves the focus on, as anywhere on the page, until the reader types in the editor (editor.js turns CodeMirror's
// tab-focus mode off at the first change that is not an indent, and on again at Reset): a keyboard reader passing
// through the page neither edits the code nor is trapped in it. From then on Tab indents, and the way out is Escape
// then Tab (or Ctrl-m / Shift-Alt-m on macOS, which toggles it), as CodeMirror provides; the content says so to
// assistive technology, and the chrome shows it next to the code while the code has the focus (chrome.js).
import { EditorView, keymap } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';

export const TAB_HINT = 'Tab moves on until you type here; then Tab indents: press Escape then Tab to move focus out.';

/** The extensions: history, bracket closing, selection matches, the keys, and the Tab hint. */
export const editing = [
  history(),
  closeBrackets(),
  highlightSelectionMatches(),
  keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
  EditorView.contentAttributes.of({ 'aria-description': TAB_HINT }),
];
