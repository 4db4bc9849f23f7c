/**
 * Words each output encoding can write (issue 39): in Windows-1251 files `₽` is «руб.» and `≠` is
 * «не равно», never `?`. Each file is decoded back with iconv-lite and its `?` counted against the
 * input's: any more are characters the writer lost.
 */
import iconv from 'iconv-lite';
import { loadBatch, writeReport } from '../../src/csv';
import { encodeText } from '../../src/csv/decode';
import { writableIn } from '../../src/i18n';
import type { BankLine } from '../../src/reconcile/match';
import { oneCExport } from '../../src/reconcile/onec';
import { reportCsv, type DayReport } from '../../src/reconcile/report';
import { cardRow, cp1251, csvText } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('ru');

const questionMarks = (text: string): number => text.split('?').length - 1;
const decoded = (bytes: Buffer): string => iconv.decode(bytes, 'win1251');

describe('writableIn: what Windows-1251 lacks, spelled out by the catalogue', () => {
  it('₽, ≠ and the minus sign in Russian and English; accented letters lose the accent', () => {
    expect(writableIn('1 234,56 ₽; a ≠ b; −5; café', 'windows-1251', 'ru')).toBe(
      '1 234,56 руб.; a не равно b; -5; cafe',
    );
    expect(writableIn('1 234,56 ₽; a ≠ b', 'windows-1251', 'en')).toBe('1 234,56 RUB; a is not b');
  });

  it('what Windows-1251 has is kept as it is (Cyrillic, Ёё, №, «», —, no-break space)', () => {
    const text = 'Ёлкин № 5 «Вёрстка» — 1\u00a0234,56';
    expect(writableIn(text, 'windows-1251', 'ru')).toBe(text);
  });

  it('UTF-8 and UTF-16 hold every sign: the text is not touched', () => {
    expect(writableIn('1 ₽ ≠ 2 ₽', 'utf-8', 'ru')).toBe('1 ₽ ≠ 2 ₽');
    expect(writableIn('1 ₽ ≠ 2 ₽', 'utf-16le', 'ru')).toBe('1 ₽ ≠ 2 ₽');
  });

  it('encodeText in Windows-1251 writes the words, in the language asked for', () => {
    expect(decoded(encodeText('100 ₽', 'windows-1251', false, 'en'))).toBe('100 RUB');
    expect(decoded(encodeText('100 ₽', 'windows-1251', false, 'ru'))).toBe('100 руб.');
  });
});

describe('Windows-1251 files hold no `?` the input did not', () => {
  it('the report of a Windows-1251 batch: a refusal naming the limit in roubles', () => {
    const input = csvText(
      [
        cardRow({ reference: 'a', amount: '150 000 000,00', description: 'Аванс? За март' }),
        cardRow({ reference: 'b', amount: '10,00' }),
      ],
      { delimiter: ';' },
    );
    const batch = loadBatch(cp1251(input), { policy: 'partial' });
    expect(batch.format.encoding).toBe('windows-1251');
    expect(batch.rows[0]!.errors.map((e) => e.message).join(' ')).toContain('₽');

    const report = decoded(writeReport(batch, new Map()));
    expect(report).toContain('руб.');
    expect(report).not.toContain('₽');
    expect(questionMarks(report)).toBe(questionMarks(input));
  });

  const day = '2026-11-25';
  const lines: BankLine[] = [
    {
      bankSystemId: 'bs-1',
      type: 'debet',
      amount: 123456,
      date: day,
      purpose: 'Выплата по договору? 1 234,56 ₽',
      counterparty: { name: 'Щербакова Е. В.', account: '40817810000000123456', bankCode: '044525225' },
    },
  ];
  const totals = { opening: 1_000_000, debet: 123456, credit: 0, closing: 876_000 };

  it('the reconciliation CSV: a balance that does not add up (≠ in its name)', () => {
    const report: DayReport = {
      account: '40702810000000000001',
      day,
      totals,
      payoutsMatched: { count: 0, amount: 0 },
      matched: [],
      found: [
        {
          key: `balance_mismatch:${day}`,
          kind: 'balance_mismatch',
          account: '40702810000000000001',
          day,
          reference: 'ref?1',
          detail: 'opening 1000000 + credit 0 − debit 123456 = 876544 ≠ closing 876000',
          state: 'open',
          foundAt: '2026-11-25T21:00:00Z',
        },
      ],
      settled: [],
      other: [],
      openDifferences: 1,
    };
    const csv = decoded(reportCsv(report));
    expect(csv).toContain('входящий + обороты не равно исходящий');
    expect(csv).not.toContain('≠');
    expect(questionMarks(csv)).toBe(1); // the reference's own
  });

  it("the 1C file: a bank's purpose with ₽ in it", () => {
    const file = decoded(
      oneCExport({
        day,
        account: '40702810000000000001',
        us: { name: 'ООО «Ромашка»', inn: '7701234567' },
        lines,
        matched: [],
        totals,
        createdAt: new Date('2026-11-26T09:00:00Z'),
      }),
    );
    expect(file).toContain('НазначениеПлатежа=Выплата по договору? 1 234,56 руб.');
    expect(questionMarks(file)).toBe(1); // the purpose's own
  });
});
