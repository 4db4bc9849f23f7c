import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import type { BatchPaths } from '../../src/batch/services/config';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import {
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  freshInn,
  ledgerPayouts,
  uniquePrefix,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { reportPathOf } from '../harness/reports';

/**
 * Excel's "Unicode text": UTF-16 little-endian with its byte order mark, cells separated by tabs; and
 * UTF-16 of either byte order without one (issue 39), told by where its NULs sit.
 */
describe('a spreadsheet saved as Unicode text (UTF-16 with BOM, tab-separated)', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('is paid row by row, once each, and its report comes back in UTF-16 with tabs', async () => {
    const p = uniquePrefix();
    const header = [
      'Референс',
      'Фамилия',
      'Имя',
      'ИНН',
      'Способ',
      'Номер карты',
      'Сумма',
      'Услуга',
      'Самозанятый',
    ];
    const rows = [
      [
        `${p}-1`,
        'Сёмина',
        'Анна',
        freshInn(2516),
        'card',
        TEST_CARDS.SUCCESS,
        '1 234,50 руб.',
        'Вёрстка',
        'да',
      ],
      [
        `${p}-2`,
        'Иванов',
        'Пётр',
        TEST_INNS.SELF_EMPLOYED_LINKED,
        'card',
        TEST_CARDS.SUCCESS,
        '10,00',
        'Дизайн',
        'нет',
      ],
    ];
    const text = [header, ...rows].map((r) => r.join('\t')).join('\r\n') + '\r\n';
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      iconv.encode(text, 'utf-16le', { addBOM: false }),
    ]);

    const r = await dropAndSubmit(stack, paths, 'unicode.txt', bytes);
    if (r.status !== 'started') throw new Error(`submitted: ${r.status} ${JSON.stringify(r)}`);
    const result = await batchHandle(stack, r.batchId).result();
    expect(result.counts).toEqual({ succeeded: 2 });
    expect([...ledgerPayouts(stack, [`${p}-1`, `${p}-2`]).values()]).toEqual([1, 1]);

    const report = readFileSync(await reportPathOf(paths, r.batchId, result));
    expect(report.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    const records: string[][] = parse(iconv.decode(report.subarray(2), 'utf-16le'), { delimiter: '\t' });
    expect(records[0]!.slice(0, 3)).toEqual(['Референс', 'Фамилия', 'Имя']);
    expect(records.slice(1).map((x) => [x[0], x[1], x[6], x[header.length]])).toEqual([
      [`${p}-1`, 'Сёмина', '1 234,50 руб.', 'succeeded'],
      [`${p}-2`, 'Иванов', '10,00', 'succeeded'],
    ]);
  });

  it.each(['utf-16le', 'utf-16be'] as const)(
    'a Cyrillic-heavy %s file without a BOM is read and paid once per row',
    async (encoding) => {
      const p = uniquePrefix();
      const header = [
        'Референс',
        'Фамилия',
        'Имя',
        'Отчество',
        'ИНН',
        'Способ',
        'Номер карты',
        'Сумма',
        'Услуга',
      ];
      const rows = [
        [
          `${p}-1`,
          'Щербакова',
          'Ефросинья',
          'Всеволодовна',
          freshInn(3916),
          'card',
          TEST_CARDS.SUCCESS,
          '1 234,50',
          'Вёрстка журнала',
        ],
        [
          `${p}-2`,
          'Жуковский',
          'Святослав',
          'Ярославович',
          freshInn(3917),
          'card',
          TEST_CARDS.SUCCESS,
          '10,00',
          'Художественное оформление',
        ],
      ];
      const bytes = iconv.encode([header, ...rows].map((r) => r.join(';')).join('\r\n') + '\r\n', encoding, {
        addBOM: false,
      });
      expect(bytes.filter((b) => b === 0).length / bytes.length).toBeLessThan(0.25);

      const r = await dropAndSubmit(stack, paths, `no-bom-${encoding}.csv`, bytes);
      if (r.status !== 'started') throw new Error(`submitted: ${r.status} ${JSON.stringify(r)}`);
      const result = await batchHandle(stack, r.batchId).result();
      expect(result.counts).toEqual({ succeeded: 2 });
      expect([...ledgerPayouts(stack, [`${p}-1`, `${p}-2`]).values()]).toEqual([1, 1]);

      const report = readFileSync(await reportPathOf(paths, r.batchId, result));
      const records: string[][] = parse(iconv.decode(report, encoding), { delimiter: ';' });
      expect(records.slice(1).map((x) => [x[0], x[1], x[7]])).toEqual([
        [`${p}-1`, 'Щербакова', '1 234,50'],
        [`${p}-2`, 'Жуковский', '10,00'],
      ]);
    },
  );
});
