// The editors' look, taken from the page: colors and fonts are the site's CSS variables (site.css, with fallbacks),
// and code tokens get the class names Pygments gives the code the builder highlights (k, s, c1, nf, ...), colored in
// editors.css with the site's code colors.
import { EditorView } from '@codemirror/view';
import { HighlightStyle } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

export const theme = EditorView.theme({
  '&': {
    fontSize: '0.85rem',
    backgroundColor: 'var(--site-code-bg, #fafafa)',
    color: 'var(--kv-ink, #27272a)',
  },
  '&.cm-focused': { outline: '2px solid var(--kv-accent, #1d4ed8)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'var(--site-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace)', lineHeight: '1.5' },
  '.cm-content': { padding: '0.5rem 0' },
  '.cm-gutters': {
    backgroundColor: 'var(--site-code-bg, #fafafa)',
    color: 'var(--kv-muted, #a1a1aa)',
    border: 'none',
  },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--site-accent-wash, #eff6ff)' },
  '.cm-lintRange-error': { backgroundColor: 'rgba(220, 38, 38, 0.12)' },
});

// Pygments' short class names (the builder's highlighter): keyword, namespace keyword, constant, builtin pseudo,
// operator word, function and class names, comment, number, string, escape, operator, decorator.
export const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword], class: 'k' },
  { tag: t.moduleKeyword, class: 'kn' },
  { tag: [t.bool, t.null], class: 'kc' },
  { tag: t.self, class: 'bp' },
  { tag: t.operatorKeyword, class: 'ow' },
  { tag: t.function(t.definition(t.variableName)), class: 'nf' },
  { tag: t.definition(t.className), class: 'nc' },
  { tag: t.comment, class: 'c1' },
  { tag: t.number, class: 'm' },
  { tag: [t.string, t.special(t.string)], class: 's' },
  { tag: t.escape, class: 'se' },
  { tag: [t.arithmeticOperator, t.compareOperator, t.bitwiseOperator, t.updateOperator, t.definitionOperator], class: 'o' },
  { tag: t.meta, class: 'nd' },
]);
