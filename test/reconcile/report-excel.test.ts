/**
 * The reconciliation CSV read back as Russian Excel's import reads it (issue 39): every money cell is
 * a number (`1234,56`, no thousands separator), and the numbers add up to the day's figures in kopecks.
 */
import iconv from 'iconv-lite';
import { reportCsv, type DayReport } from '../../src/reconcile/report';
import { excelRead, kopecksOf } from '../harness/excel-csv';

const day = '2026-11-25';
const account = '40702810000000000001';
const matched = [
  { amount: 123_456_78, reference: 'p-1' },
  { amount: 1_000_000_00, reference: 'p-2' },
  { amount: 5_05, reference: 'p-3' },
].map((m, i) => ({
  ...m,
  bankSystemId: `bs-${i}`,
  sessionId: `s-${i}`,
  type: 'debet' as const,
  by: 'session_id' as const,
}));
const paid = matched.reduce((s, m) => s + m.amount, 0);
const report: DayReport = {
  account,
  day,
  totals: {
    opening: 2_000_000_00,
    debet: paid + 1_500_00,
    credit: 10_000_00,
    closing: 2_000_000_00 - paid + 8_500_00,
  },
  payoutsMatched: { count: matched.length, amount: paid },
  matched,
  found: [
    {
      key: 'unknown_to_payrun:bs-9',
      kind: 'unknown_to_payrun',
      account,
      day,
      bankSystemId: 'bs-9',
      bankAmount: 1_500_00,
      detail: 'a debit payrun did not make',
      state: 'open',
      foundAt: '2026-11-25T21:00:00Z',
    },
  ],
  settled: [],
  other: [{ bankSystemId: 'bs-10', type: 'credit', amount: 10_000_00, purpose: 'пополнение' }],
  openDifferences: 1,
};

describe('the reconciliation CSV in Russian Excel', () => {
  const rows = excelRead(iconv.decode(reportCsv(report), 'win1251'));
  const header = rows[0]!.map((c) => ('text' in c ? c.text : ''));
  const column = (name: string) => header.indexOf(name);
  const byOutcome = (outcome: string) => rows.filter((r) => 'text' in r[2]! && r[2].text === outcome);

  it('reads every money cell as a number, and the numbers are the report’s kopecks', () => {
    const bank = column('Сумма банка');
    const ours = column('Сумма payrun');
    const lines = byOutcome('сходится');
    expect(lines.map((r) => kopecksOf(r[ours]))).toEqual(matched.map((m) => m.amount));
    expect(lines.reduce((s, r) => s + kopecksOf(r[bank]), 0)).toBe(report.payoutsMatched.amount);
    expect(kopecksOf(byOutcome('расхождение')[0]![bank])).toBe(1_500_00);
    expect(kopecksOf(byOutcome('зачисление')[0]![bank])).toBe(10_000_00);
    expect(kopecksOf(byOutcome('выплаты сходятся')[0]![ours])).toBe(report.payoutsMatched.amount);
  });

  it('the balance rows are the statement totals, and they add up as Excel sums them', () => {
    const bank = column('Сумма банка');
    const total = (outcome: string) => kopecksOf(byOutcome(outcome)[0]![bank]);
    expect(total('входящий остаток')).toBe(report.totals.opening);
    expect(total('списано')).toBe(report.totals.debet);
    expect(total('поступило')).toBe(report.totals.credit);
    expect(total('исходящий остаток')).toBe(report.totals.closing);
    expect(total('входящий остаток') - total('списано') + total('поступило')).toBe(
      total('исходящий остаток'),
    );
    // The statement's debits in the file (matched and the unknown one) sum to its debit turnover.
    const debits = [...byOutcome('сходится'), ...byOutcome('расхождение')];
    expect(debits.reduce((s, r) => s + kopecksOf(r[bank]), 0)).toBe(report.totals.debet);
  });
});
