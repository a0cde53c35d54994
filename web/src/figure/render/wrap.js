// Breaking a label into lines no wider than a given width, measured with the font the canvas draws text in.

let context = null;
const widths = new Map();

function measure(text, font, family) {
  const key = `${font}|${family}|${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    context ||= document.createElement('canvas').getContext('2d');
    if (context) {
      context.font = `${font}px ${family}`;
      w = context.measureText(text).width;
    } else {
      w = text.length * font * 0.55; // no canvas: a typical sans-serif glyph width
    }
    widths.set(key, w);
  }
  return w;
}

/** The lines of `label`: its own line breaks, and breaks between words where a line would pass `width` px. */
export function wrapLines(label, width, font, family) {
  const lines = [];
  for (const paragraph of label.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const wider = line ? `${line} ${word}` : word;
      if (line && width > 0 && measure(wider, font, family) > width) {
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
