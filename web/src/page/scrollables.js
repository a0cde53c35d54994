// A region that scrolls (a wide formula, table or code block on a narrow screen) is a tab stop when nothing in it
// is, so a keyboard can scroll it too (WCAG 2.1.1; axe's scrollable-region-focusable). Checked on load and when
// the window's size changes; a region that no longer scrolls stops being one.

const REGIONS = '.kv-prose pre, .kv-prose table, .kv-math, .kv-editor-stdout, .kv-step-items';
const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex], [contenteditable="true"]';
const MARK = 'data-kv-scroll-stop';

function scrolls(el) {
  const style = getComputedStyle(el);
  const x = el.scrollWidth > el.clientWidth + 1 && /auto|scroll/.test(style.overflowX);
  const y = el.scrollHeight > el.clientHeight + 1 && /auto|scroll/.test(style.overflowY);
  return x || y;
}

function update(doc) {
  for (const el of doc.querySelectorAll(REGIONS)) {
    const ours = el.hasAttribute(MARK);
    if (!ours && (el.hasAttribute('tabindex') || el.querySelector(FOCUSABLE))) continue;
    const stop = scrolls(el);
    if (stop && !ours) {
      el.tabIndex = 0;
      el.setAttribute(MARK, '');
    } else if (!stop && ours) {
      el.removeAttribute('tabindex');
      el.removeAttribute(MARK);
    }
  }
}

/** Keep the scrolling regions of `doc` focusable, now and after each resize (once per frame at most). */
export function focusableScrollers(doc = document) {
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      update(doc);
    });
  };
  later();
  addEventListener('resize', later);
  return later;
}
