// Small DOM builders for the panel's tables. Labels are text (textContent), never HTML. A numeric cell keeps the
// exact number in data-value (String(x): "NaN" and "Infinity" included), so tests read numbers, not digits.

/** An element with a class and text. */
export function el(tag, className = '', text = '') {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

/** A cell that shows `shown` and keeps `exact` (a number) in data-value. */
export function numberCell(exact, shown, tag = 'td') {
  const cell = el(tag, 'kv-sp-num', shown);
  cell.dataset.value = String(exact);
  if (Number.isNaN(exact) || exact === Infinity) cell.classList.add('kv-sp-bad'); // an overflow; −∞ is a start value
  return cell;
}

/** A <table> with a caption, a header row, body rows and foot rows; a row is a list of cells or strings. */
export function table(name, caption, head, body, foot = []) {
  const t = el('table', 'kv-sp-table');
  t.dataset.table = name;
  t.append(el('caption', '', caption));
  const addRows = (section, rows, tag) => {
    for (const cells of rows) {
      const tr = el('tr');
      for (const c of cells) tr.append(typeof c === 'string' ? el(tag, '', c) : c);
      section.append(tr);
    }
    t.append(section);
  };
  addRows(el('thead'), [head], 'th');
  addRows(el('tbody'), body, 'td');
  if (foot.length) addRows(el('tfoot'), foot, 'td');
  return t;
}
