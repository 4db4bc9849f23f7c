/**
 * streamBatch reads a file a row at a time and must answer exactly as loadBatch does with the whole
 * file in memory: the same errors in the same order, totals, format and valid rows, for every encoding
 * and every way a file is refused. Duplicates are found with a bounded index: forced to spill here.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { contentHash, loadBatch, type LoadOptions, type RowError } from '../../src/csv';
import { DuplicateIndex } from '../../src/csv/duplicates';
import { streamBatch, type StreamOptions } from '../../src/csv/stream-load';
import type { PayoutRequest } from '../../src/domain';
import { CARD, INN } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en');

const dir = mkdtempSync(join(tmpdir(), 'stream-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileOf = (bytes: Buffer): string => {
  const path = join(dir, `f${n++}.csv`);
  writeFileSync(path, bytes);
  return path;
};

const HEADER = 'reference,last_name,first_name,inn,method,card_number,amount,service_name';
const row = (ref: string, amount = '10.00', last = 'Иванов') =>
  `${ref},${last},Иван,${INN},card,${CARD},${amount},Дизайн`;
const csv = (...lines: string[]) => Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');

/** What loadBatch says, in the shape streamBatch answers. */
function expected(bytes: Buffer, opts: LoadOptions) {
  const b = loadBatch(bytes, opts);
  const duplicateOrInvalid = new Set(b.rows.filter((r) => !r.request).map((r) => r.row));
  return {
    format: b.format,
    totals: b.totals,
    rejected: b.rejected,
    errors: [...b.fileErrors, ...b.rows.flatMap((r) => r.errors)],
    accepted: b.rejected
      ? []
      : b.rows.filter((r) => !duplicateOrInvalid.has(r.row)).map((r) => [r.row, r.request!]),
    hash: contentHash(bytes),
  };
}

async function streamed(path: string, opts: StreamOptions) {
  const handed: [number, PayoutRequest][] = [];
  const b = await streamBatch(path, opts, (row, request) => {
    handed.push([row, request]);
  });
  try {
    const errors: RowError[] = [];
    for await (const e of b.errors()) errors.push(e);
    const duplicates = new Set<number>();
    for await (const r of b.duplicateValidRows()) duplicates.add(r);
    expect(errors).toHaveLength(b.errorCount);
    expect(duplicates.size).toBe(b.duplicateValid);
    return {
      format: b.format,
      totals: b.totals,
      rejected: b.rejected,
      errors,
      accepted: b.rejected ? [] : handed.filter(([r]) => !duplicates.has(r)),
      hash: b.contentHash,
    };
  } finally {
    b.close();
  }
}

const examples = join(__dirname, '../../batches/examples');
const cases: [string, Buffer][] = [
  ...readdirSync(examples)
    .filter((f) => f.endsWith('.csv'))
    .map((f): [string, Buffer] => [f, readFileSync(join(examples, f))]),
  ['valid', csv(HEADER, row('a-1'), row('a-2', '20.00'))],
  [
    'planted errors',
    csv(HEADER, row('b-1'), row('b-2', 'сто'), row('b-3', '-1'), row('b 4'), row('b-5', '1.001')),
  ],
  [
    'duplicates, one of them otherwise invalid',
    csv(HEADER, row('c-1'), row('c-2'), row('c-1'), row('c-2', 'x'), row('c-3')),
  ],
  ['a TOTAL row last', csv(HEADER, row('d-1'), row('d-2', '5.00'), ',,,,,,15.00,', '')],
  ['a TOTAL row last, wrong', csv(HEADER, row('d-1'), 'ИТОГО,,,,,,16.00,')],
  ['a TOTAL row not last', csv(HEADER, row('e-1'), 'TOTAL,,,,,,10.00,', row('e-2'))],
  ['blank rows kept numbered', csv('', HEADER, '', row('f-1'), ',,,', row('f-2'), '', '')],
  ['header problems', csv('reference,last_name,amount', 'g-1,Иванов,10.00')],
  ['empty', Buffer.alloc(0)],
  ['header only', csv(HEADER)],
  ['binary', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3, 0, 0])],
  ['broken quotes', csv(HEADER, row('h-1'), 'h-2,"Ив"ан"ов,Иван')],
  [
    'utf-16le with a BOM',
    iconv.encode(csv(HEADER, row('i-1'), row('i-1')).toString(), 'utf-16le', { addBOM: true }),
  ],
  [
    'utf-16be without a BOM',
    iconv.encode(csv(HEADER, row('j-1', '3,50')).toString().replace(/,/g, ';'), 'utf-16be'),
  ],
  [
    'windows-1251',
    iconv.encode(csv(HEADER, row('k-1'), row('k-2', '7.00', 'Щербакова')).toString(), 'win1251'),
  ],
  [
    'cells in two encodings',
    Buffer.concat([iconv.encode(csv(HEADER, row('l-1')).toString(), 'win1251'), csv(row('l-2'), row('l-3'))]),
  ],
  ['a UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv(HEADER, row('m-1'))])],
  [
    'pay_on: now, a month ahead, past, too far, not a date',
    csv(
      `${HEADER},pay_on`,
      `${row('p-1')},`,
      `${row('p-2')},${new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)}`,
      `${row('p-3')},01.01.2020`,
      `${row('p-4')},01.01.2099`,
      `${row('p-5')},завтра`,
    ),
  ],
];

describe('streamBatch answers as loadBatch', () => {
  const policies: LoadOptions[] = [
    {},
    { policy: 'partial' },
    { policy: 'partial', expectTotalKopecks: 1000 },
  ];
  it.each(cases)('%s', async (_name, bytes) => {
    const path = fileOf(bytes);
    for (const opts of policies) {
      expect(await streamed(path, { ...opts, spillLimit: 2 })).toEqual(expected(bytes, opts));
    }
  });

  it('a stated encoding against the bytes', async () => {
    const bytes = iconv.encode(csv(HEADER, row('n-1')).toString(), 'utf-16le', { addBOM: true });
    const path = fileOf(bytes);
    for (const encoding of ['utf-8', 'windows-1251'] as const)
      expect(await streamed(path, { encoding })).toEqual(expected(bytes, { encoding }));
    const utf8 = csv(HEADER, row('n-2'));
    expect(await streamed(fileOf(utf8), { encoding: 'windows-1251' })).toEqual(
      expected(utf8, { encoding: 'windows-1251' }),
    );
  });

  it('many duplicates beyond the in-memory limit: every row named, the order kept', async () => {
    const lines = [HEADER];
    for (let i = 1; i <= 300; i++) lines.push(row(`p-${i % 37}`, `${i}.00`));
    const bytes = csv(...lines);
    const got = await streamed(fileOf(bytes), { policy: 'partial', spillLimit: 7 });
    expect(got).toEqual(expected(bytes, { policy: 'partial' }));
    expect(got.errors.filter((e) => e.rule === 'reference_duplicate')).toHaveLength(300);
  });
});

describe('DuplicateIndex beyond its in-memory limit', () => {
  it('spills sorted runs and still finds every reused reference, in row order', async () => {
    const index = new DuplicateIndex(4);
    const refs = ['z', 'a', 'm', 'a', 'q', 'b', 'z', 'c', 'd', 'e', 'a', 'f', 'g', 'h', 'b'];
    refs.forEach((ref, i) => index.add(ref, i + 2, i % 2 === 0 ? 100 * (i + 1) : null));
    expect(index.spilledRuns).toBeGreaterThanOrEqual(3);
    const found = await index.resolve();
    try {
      const rows: [number, number | null, string][] = [];
      for await (const [row, kopecks, error] of found.rows.sorted()) rows.push([row, kopecks, error.message]);
      // z: rows 2 and 8; a: 3, 5 and 12; b: 7 and 16
      expect(rows.map(([row]) => row)).toEqual([2, 3, 5, 7, 8, 12, 16]);
      expect(rows.find(([row]) => row === 5)![2]).toMatch(/3\D+5\D+12/);
      expect(found.validRows).toBe(rows.filter(([, k]) => k !== null).length);
    } finally {
      found.rows.close();
    }
  });
});
