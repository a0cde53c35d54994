// Fitting the drawing to its canvas. The drawing's box is the union of everything the figure draws at any step
// (the bound diagram's items through every phase of every step, the other diagrams, texts, rectangles and visible
// points), so the figure does not jump while it plays. `fit` then gives the zoom that puts that box in the canvas
// with a margin, and the smallest font, in user px, that still renders at MIN_LABEL_PX on screen.
//
// Boxes are [left, top, right, bottom] in user px: canvas (x, y) is user (x·unit, −y·unit), as in canvas.js.
import { num, pos, text } from '../values.js';
import { labelSize } from './label.js';

export const MIN_LABEL_PX = 11; // no label renders smaller than this on screen
const MARGIN_PX = 12; // between the drawing and the canvas's edge
const MAX_ZOOM = 4; // a tiny drawing is magnified at most this much
const POINT_R = 6; // a visible point's radius (shapes.js)

function union(box, left, top, right, bottom) {
  if (!(Number.isFinite(left) && Number.isFinite(top) && Number.isFinite(right) && Number.isFinite(bottom))) return box;
  if (!box) return [left, top, right, bottom];
  return [Math.min(box[0], left), Math.min(box[1], top), Math.max(box[2], right), Math.max(box[3], bottom)];
}

/** `box` grown by label `label` centred at (cx, cy) px, drawn at max(font, minFont) px, wrapped at wrapPx. */
function addLabel(box, label, cx, cy, font, wrapPx, minFont) {
  if (!label) return box;
  const [w, h] = labelSize(label, Math.max(font, minFont), wrapPx);
  return union(box, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2);
}

/** `box` grown by what diagram item `it` draws (diagram.js), at `unit` px per canvas unit. */
function addItem(box, it, unit, minFont) {
  const [x0, y0, x1, y1] = [it.x * unit, -it.y * unit, (it.x + it.w) * unit, -(it.y + it.h) * unit];
  if (it.line ? it.stroke !== 'none' : (it.w !== 0 || it.h !== 0) && (it.fill !== 'none' || it.stroke !== 'none')) {
    box = union(box, Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1));
  }
  return addLabel(box, it.label, (x0 + x1) / 2, (y0 + y1) / 2, it.font, it.wrap * unit, minFont);
}

/** The items of `diagram` through every phase of every step of `steps` (null: the items alone), each once. */
function* everyItem(items, steps) {
  yield* items;
  const current = items.slice();
  for (const step of steps || []) {
    for (const phase of ['start', 'move', 'end']) {
      for (const [index, fields] of step[phase] || []) {
        current[index] = { ...current[index], ...fields };
        yield current[index];
      }
    }
  }
}

/** The box of everything `model` draws at any step, at `unit` px per unit, labels at least `minFont` px; null when
 * it draws nothing. `stepsOf(diagramId)` gives the steps that play on a diagram (null: none). */
export function drawingBox(model, byId, unit, minFont, stepsOf) {
  let box = null;
  for (const node of model.nodes) {
    if (node.kind === 'diagram') {
      for (const it of everyItem(node.items, stepsOf(node.id))) box = addItem(box, it, unit, minFont);
    } else if (node.kind === 'rectangle') {
      const [x, y] = pos(node.corner, byId);
      const [x1, y1] = [x + num(node.w, byId), y + num(node.h, byId)];
      box = union(box, Math.min(x, x1) * unit, -Math.max(y, y1) * unit, Math.max(x, x1) * unit, -Math.min(y, y1) * unit);
    } else if (node.kind === 'text') {
      const size = num(node.size, byId);
      box = addLabel(box, text(node.label, byId), num(node.x, byId) * unit, -num(node.y, byId) * unit, size, 0, minFont);
    } else if (node.kind === 'point' && !node.hidden) {
      const [x, y] = [num(node.x, byId) * unit, -num(node.y, byId) * unit];
      box = union(box, x - POINT_R, y - POINT_R, x + POINT_R, y + POINT_R);
    }
  }
  return box;
}

/**
 * How to show the drawing of `model` in a canvas of width × height px: {zoom, centre: [x, y] user px, minFont}.
 * The zoom puts the drawing's box (with labels no smaller than MIN_LABEL_PX on screen) inside the canvas less a
 * margin; minFont is the font size, in user px, below which a label would render under MIN_LABEL_PX.
 */
export function fit(model, byId, unit, width, height, stepsOf) {
  let minFont = 0;
  let view = { zoom: 1, centre: [0, 0], minFont };
  for (let round = 0; round < 3; round++) {
    const box = drawingBox(model, byId, unit, minFont, stepsOf);
    if (!box) return view;
    const [w, h] = [Math.max(box[2] - box[0], 1), Math.max(box[3] - box[1], 1)];
    const zoom = Math.min(Math.max(width - 2 * MARGIN_PX, 1) / w, Math.max(height - 2 * MARGIN_PX, 1) / h, MAX_ZOOM);
    view = { zoom, centre: [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], minFont };
    const needed = MIN_LABEL_PX / zoom;
    if (needed <= minFont + 0.01) break;
    minFont = needed; // labels grow to stay legible: measure the drawing again with them
  }
  view.minFont = MIN_LABEL_PX / view.zoom;
  return view;
}
