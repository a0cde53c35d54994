// Copying text to the clipboard, and saying so. copyText(text) uses navigator.clipboard.writeText where the page
// may (a secure context: https, or http on localhost), else selects a hidden textarea and runs
// document.execCommand('copy') (http on another host, or a Clipboard API that refused); it resolves once copied and
// rejects with an Error that says why not. copyButton(button, text, done) makes `button` copy `text()` on a click:
// its label says `done` ("Copied"), or the failure, for a moment, and a polite live region of the page says the
// same to a screen reader. Shared by the page's runtime and the editors bundle (no DOM helper, no CSS needed).

const SHOWN_MS = 1600; // how long a button says "Copied" before its label comes back

/** Put `text` on the clipboard; rejects with an Error naming the failure. */
export async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // refused (no permission, the document not focused): the old way may still work
    }
  }
  copyByCommand(text);
}

function copyByCommand(text) {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  area.tabIndex = -1;
  // fixed, out of the flow and transparent: adding it moves nothing on the page
  Object.assign(area.style, { position: 'fixed', top: '0', left: '0', width: '1px', height: '1px', opacity: '0' });
  const focused = document.activeElement;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  } finally {
    area.remove();
    focused?.focus?.({ preventScroll: true });
  }
  if (!copied) throw new Error('the browser refused to copy');
}

let region = null;

/** Say `words` in the page's polite live region (made on first use, visually hidden). */
export function announce(words) {
  if (!region) {
    region = document.createElement('div');
    region.className = 'kv-copy-status';
    region.setAttribute('role', 'status');
    region.setAttribute('aria-live', 'polite');
    const hidden = { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden', clipPath: 'inset(50%)' };
    Object.assign(region.style, hidden, { whiteSpace: 'nowrap' });
    document.body.append(region);
  }
  region.textContent = '';
  setTimeout(() => (region.textContent = words), 50); // a change, even when the same words are said again
}

/** Show `label` on `button` for a moment, then its own label again. */
export function flash(button, label, failed = false) {
  button.$label ??= button.textContent;
  clearTimeout(button.$flash);
  button.textContent = label;
  button.dataset.copied = failed ? 'failed' : 'true';
  announce(label);
  button.$flash = setTimeout(() => {
    button.textContent = button.$label;
    delete button.dataset.copied;
  }, SHOWN_MS);
}

/** On a click, copy `text()` (a string, or a promise of one) and say `done`, or why it failed. */
export function copyButton(button, text, done = 'Copied') {
  button.addEventListener('click', async () => {
    try {
      await copyText(await text());
      flash(button, done);
    } catch (e) {
      console.warn('kernelviz: could not copy', e);
      flash(button, 'Copy failed', true);
    }
  });
  return button;
}
