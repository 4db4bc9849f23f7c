/**
 * The whole row list an approver reviews, as CSV for a spreadsheet: headers in the language set, ';'
 * like a Russian Excel, Windows-1251 (default) or UTF-8 with a byte order mark, every number masked as on
 * the page, money as `1234,56` (a number to Russian Excel, which takes `1 234,56` for text) and every
 * cell a spreadsheet could run neutralised (as the reports are). Written a thousand rows at a time, so
 * the download's memory does not grow with the batch; the last line is the total.
 */
import { stringify } from 'csv-stringify/sync';
import { t, type Lang } from '../i18n';
import { cellRubles } from '../money';
import { encodeText } from '../csv/decode';
import { neutralizeCell } from '../csv/report';
import type { ReviewEntry } from './review-cache';

export type ReviewCsvEncoding = 'windows-1251' | 'utf-8';

const COLUMNS = [
  'row',
  'reference',
  'name',
  'inn',
  'method',
  'payee',
  'amount',
  'selfEmployed',
  'recipientTotal',
  'newRecipient',
  'limit',
] as const;
const PER_WRITE = 1000;

export function* reviewCsv(entry: ReviewEntry, lang: Lang, encoding: ReviewCsvEncoding): Generator<Buffer> {
  const { review } = entry;
  const yes = (v: boolean) => t('review.yes', { yes: v }, lang);
  const encode = (records: string[][], first: boolean) =>
    encodeText(
      stringify(
        records.map((r) => r.map(neutralizeCell)),
        { delimiter: ';', record_delimiter: '\r\n' },
      ),
      encoding,
      first && encoding === 'utf-8',
      lang,
    );
  let records: string[][] = [COLUMNS.map((column) => t('review.column', { column }, lang))];
  let first = true;
  for (const r of review.rows) {
    const p = review.people[r.person]!;
    records.push([
      String(r.row),
      r.reference,
      r.name,
      p.innMasked,
      t('review.method', { method: r.method }, lang),
      r.payee,
      cellRubles(r.amount),
      yes(r.selfEmployed),
      cellRubles(p.total),
      p.fresh ? yes(true) : '',
      review.limitFlags.get(r.row) ?? '',
    ]);
    if (records.length >= PER_WRITE) {
      yield encode(records, first);
      first = false;
      records = [];
    }
  }
  const total = COLUMNS.map((c) => (c === 'row' ? t('review.column', { column: 'grandTotal' }, lang) : ''));
  total[COLUMNS.indexOf('amount')] = cellRubles(review.total);
  records.push(total);
  yield encode(records, first);
}
