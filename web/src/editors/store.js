// What the reader changed, kept in localStorage: each editor's code per page, and the run time limit.
// An edit is stored as {code, base}: `base` is the page's code it was made from, so a page whose code changed
// since can say so. Storage can be unavailable (privacy modes, quotas): every call then quietly does nothing.

const PREFIX = 'kernelviz:';
export const DEFAULT_LIMIT_S = 10;

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function read(key) {
  try {
    const text = storage()?.getItem(PREFIX + key);
    return text == null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value == null) storage()?.removeItem(PREFIX + key);
    else storage()?.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // full or unavailable: the edit lives on in the editor until the page closes
  }
}

const editKey = (page, index) => `edit:${page}:${index}`;

/** The reader's code for editor `index` of `page`: {code, base}, or null when it has none. */
export function loadEdit(page, index) {
  const edit = read(editKey(page, index));
  return edit && typeof edit.code === 'string' ? edit : null;
}

/** Keep `code` for editor `index` of `page`; `base` is the page's code. Code equal to `base` is no edit. */
export function saveEdit(page, index, code, base) {
  write(editKey(page, index), code === base ? null : { code, base });
}

/** Whether any of the editors `indices` of `page` has the reader's code. */
export function hasEdits(page, indices) {
  return indices.some((index) => loadEdit(page, index) !== null);
}

export function clearEdit(page, index) {
  write(editKey(page, index), null);
}

/** The time limit of a run, in seconds (the same on every page). */
export function loadLimit() {
  const s = read('limit');
  return Number.isInteger(s) && s >= 1 && s <= 600 ? s : DEFAULT_LIMIT_S; // chrome.js's LIMIT_MIN_S, LIMIT_MAX_S
}

export function saveLimit(seconds) {
  write('limit', seconds === DEFAULT_LIMIT_S ? null : seconds);
}
