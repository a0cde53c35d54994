// The figure's tools, in the step player's row (so that they cost the drawing no room on a phone): "Link" copies
// the URL of the step shown now (the page's URL with the hash the figure writes, #step=7, and the sizes the reader
// picked, #N=12&Br=4&Bc=4&step=7: see page/hash.js), which opens the figure at that step and those sizes; "SVG"
// and "PNG" save the figure as drawn now (see ../export.js), named after the page and the step.
//
//   new FigureTools(bar, figure, follow): the row appended to `bar`; `figure`: {svg(), step(), sizes()}, the
//   drawing's <svg>, the current step and the sizes the URL carries (null: the page's own); `follow` (ui/follow.js),
//   whose toggle leads the row.
import { copyButton, flash } from '../../page/clipboard.js';
import { download, fileName, pngBlob, standaloneSvg } from '../export.js';
import { hashOf } from '../page/hash.js';
import { h } from '../../lib/dom.js';

/** The URL of step `k` at `sizes`: the page's, with the figure's hash. */
export function stepUrl(k, sizes) {
  return `${location.origin}${location.pathname}${location.search}${hashOf(k, sizes)}`;
}

export class FigureTools {
  constructor(bar, figure, follow) {
    const link = h('button', { type: 'button', class: 'kv-link', 'aria-label': 'Copy a link to this step' }, 'Link');
    copyButton(link, () => stepUrl(figure.step(), figure.sizes()), 'Link copied');
    const save = (ext, make) => {
      const name = `Save the figure as ${ext.toUpperCase()}`;
      const button = h('button', { type: 'button', class: `kv-save-${ext}`, 'aria-label': name }, ext.toUpperCase());
      button.addEventListener('click', async () => {
        try {
          const file = fileName(figure.step(), ext);
          download(await make(standaloneSvg(figure.svg())), file);
          flash(button, 'Saved');
        } catch (e) {
          console.warn(`kernelviz: the figure could not be saved as ${ext}`, e);
          flash(button, 'Failed', true);
        }
      });
      return button;
    };
    const svg = save('svg', (standalone) => new Blob([standalone.text], { type: 'image/svg+xml' }));
    const png = save('png', (standalone) => pngBlob(standalone, 2));
    this.root = h('span', { class: 'kv-figure-tools' }, follow.button, link, svg, png);
    bar.append(this.root);
  }
}
