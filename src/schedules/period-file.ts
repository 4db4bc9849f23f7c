/**
 * A recurring payrun's period file: the preparer's template with the period appended to every reference,
 * so each period pays under references of its own, and the same period derived twice is the same bytes
 * (the same batch id: submitted once, paid once). Every other cell is kept as the template has it.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { decodeBytes, detectDelimiter } from '../csv/decode';
import { mapHeaders, TOTAL_MARKERS } from '../csv/format';

/** What the period adds to a reference: `.YYYYMMDD`, inside the 64 characters a reference may have. */
export const PERIOD_SUFFIX_LENGTH = 9;

export const periodReference = (reference: string, period: string) =>
  `${reference}.${period.replaceAll('-', '')}`;

const blank = (cells: readonly string[]) => cells.every((c) => c.trim() === '');

/**
 * The period's file, UTF-8 with a byte order mark (so Excel opens it in Cyrillic), the template's
 * separator, CRLF. The template was checked when the schedule was made (template.ts): its header maps.
 */
export function periodFile(template: Buffer, period: string): Buffer {
  const { text } = decodeBytes(template);
  const delimiter = detectDelimiter(text);
  const records: string[][] = parse(text, {
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
  });
  const header = records.findIndex((cells) => !blank(cells));
  const at = mapHeaders(records[header] ?? []).index.reference;
  if (at === undefined) throw new Error('the template has no reference column');
  const out = records.map((cells, i) => {
    if (i <= header || blank(cells)) return cells;
    const reference = cells[at]?.trim() ?? '';
    if (reference === '' || TOTAL_MARKERS.has(reference.toLowerCase())) return cells;
    return cells.map((c, j) => (j === at ? periodReference(reference, period) : c));
  });
  const body = stringify(out, { delimiter, record_delimiter: '\r\n' });
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body, 'utf8')]);
}
