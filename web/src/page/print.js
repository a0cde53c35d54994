// What a print needs that print.css cannot give. The browser lays a printed page out without a frame the page's
// scripts could see, so on `beforeprint`:
// - the figure (if any) is fitted to its canvas on paper, PRINT_CANVAS px (the page's width, half as tall: print.css),
//   at the step it shows; on `afterprint` it is fitted to its own canvas again;
// - every closed CUDA block (details.kv-cuda) is opened, for browsers without ::details-content, and closed again
//   on `afterprint` (cuda-blocks.js renders every block's lines on `beforeprint` too: until then a block holds
//   its code as plain text).
// Emulated print media (no beforeprint) is print.css's alone.

export const PRINT_CANVAS = [720, 360];

/** Wire the print hooks of `doc` for `figure` (null: the page has none). */
export function wirePrint(figure, doc = document) {
  let opened = [];
  addEventListener('beforeprint', () => {
    opened = [...doc.querySelectorAll('details.kv-cuda:not([open])')];
    for (const details of opened) details.open = true;
    figure?.layoutFor(PRINT_CANVAS);
  });
  addEventListener('afterprint', () => {
    for (const details of opened) details.open = false;
    opened = [];
    figure?.layoutFor(null);
  });
}
