// The page contract, as the editors read it: <body data-page>, the editor blocks (.kv-editor[data-editor]) and
// their code in <script id="kv-editors"> ([{title, code, first_line}]). A block without an entry there keeps the
// code its <pre> shows.

/** The name `doc`'s editors keep the reader's edits under (store.js): its slug, else its path. */
export function pageName(doc) {
  return doc.body.dataset.page || doc.location.pathname;
}

/** {name, editors: [{element, index, title, code, firstLine}]} of `doc`, in page order. */
export function readPage(doc) {
  const name = pageName(doc);
  let specs = [];
  try {
    specs = JSON.parse(doc.getElementById('kv-editors')?.textContent || '[]');
  } catch {
    specs = [];
  }
  const editors = [...doc.querySelectorAll('.kv-editor')].map((element, order) => {
    const index = Number(element.dataset.editor ?? order);
    const spec = specs[index] || {};
    const shown = element.querySelector('pre')?.textContent ?? '';
    return {
      element,
      index,
      title: spec.title ?? element.dataset.title ?? '',
      code: typeof spec.code === 'string' ? spec.code : shown,
      firstLine: Number(spec.first_line) || 1,
    };
  });
  editors.sort((a, b) => a.index - b.index);
  return { name, editors };
}
