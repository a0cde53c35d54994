// Breaking a label into lines no wider than a given width, measured with the font the canvas draws text in.
import { FONT_FAMILY } from './canvas.js';

let context = null;
const widths = new Map();

/** The width in px of `text` in the canvas's font at `font` px. */
export function measure(text, font) {
  const key = `${font}|${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    context ||= document.createElement('canvas').getContext('2d');
    if (context) {
      context.font = `${font}px ${FONT_FAMILY}`;
      w = context.measureText(text).width;
    } else {
      w = text.length * font * 0.55; // no canvas: a typical sans-serif glyph width
    }
    widths.set(key, w);
  }
  return w;
}

/** The lines of `label`: its own line breaks, and breaks between words where a line would pass `width` px. */
export function wrapLines(label, width, font) {
  const lines = [];
  for (const paragraph of label.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const wider = line ? `${line} ${word}` : word;
      if (line && width > 0 && measure(wider, font) > width) {
        lines.push(line);
        line = word;
      } else {
        line = wider;
      }
    }
    lines.push(line);
  }
  return lines;
}
