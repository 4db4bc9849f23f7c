/**
 * A CSV file read back as Russian Excel's import reads it (list separator `;`, decimal comma, no
 * thousands separator): cells split on `;` outside quotes, `""` a quote inside them; a cell that is
 * only digits with an optional sign and decimal comma is a number, anything else (`1 234,56` with a
 * space of any kind, `1234.56`) is text and adds up to nothing. Numbers come back in kopecks, exact.
 */
export type ExcelCell = { number: number } | { text: string };

function cell(raw: string): ExcelCell {
  const m = /^(-?)(\d+)(?:,(\d{1,2}))?$/.exec(raw);
  if (!m) return { text: raw };
  const kopecks = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return { number: m[1] === '-' ? -kopecks : kopecks };
}

export function excelRead(text: string): ExcelCell[][] {
  const rows: ExcelCell[][] = [];
  let row: ExcelCell[] = [];
  let raw = '';
  let inQuotes = false;
  const endCell = () => {
    row.push(cell(raw));
    raw = '';
  };
  const endRow = () => {
    endCell();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inQuotes && ch === '"' && text[i + 1] === '"') {
      raw += '"';
      i++;
    } else if (ch === '"') inQuotes = !inQuotes;
    else if (inQuotes) raw += ch;
    else if (ch === ';') endCell();
    else if (ch === '\r' && text[i + 1] === '\n') {
      endRow();
      i++;
    } else raw += ch;
  }
  if (raw !== '' || row.length > 0) endRow();
  return rows;
}

/** The number of a cell, or a failure naming what Excel would have made of it. */
export function kopecksOf(c: ExcelCell | undefined): number {
  if (c && 'number' in c) return c.number;
  throw new Error(`Excel reads ${JSON.stringify(c)} as text, not a number`);
}
