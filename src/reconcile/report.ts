import { stringify } from 'csv-stringify/sync';
import * as iconv from 'iconv-lite';
import { writableIn } from '../i18n';
import { cellRubles } from '../money';
import { DIFFERENCE_KINDS } from './kinds';
import type { BankLine, DayResult, StatementTotals } from './match';
import type { DifferenceRecord } from './store';

/**
 * The day's reconciliation report: CSV as accounting's own files are (Windows-1251, ';', CRLF, money as
 * `1234,56` so that Russian Excel reads it as a number, dates DD.MM.YYYY) and the same in JSON for programs. One row per statement line matched,
 * per difference found, per earlier difference the day settled and per other movement (top-ups).
 */
export interface DayReport {
  account: string;
  day: string;
  totals: StatementTotals;
  /** Balances read when the day was reconciled (report/account_balance, wallet/balance), for reference. */
  balancesNow?: { account?: number; deposit?: number; at: string };
  payoutsMatched: { count: number; amount: number };
  matched: DayResult['matched'];
  found: DifferenceRecord[];
  settled: DayResult['settled'];
  other: Pick<BankLine, 'bankSystemId' | 'type' | 'amount' | 'purpose'>[];
  openDifferences: number;
}

const HEADER = [
  'Дата',
  'Счёт',
  'Итог',
  'Референс',
  'Сессия банка',
  'Номер в банке',
  'Сумма payrun',
  'Сумма банка',
  'Расхождение',
  'Что делать',
  'Состояние',
];

/** The state column in the file's Russian (its JSON twin keeps the codes for programs). */
const STATE_RU: Record<string, string> = {
  open: 'открыто',
  matched: 'подтверждено позже',
  resolved: 'закрыто',
  session_id: 'по сессии банка',
};
const stateRu = (state: string) => STATE_RU[state] ?? state;

const rub = (k: number | undefined) => (k === undefined ? '' : cellRubles(k));
const ruDate = (day: string) => day.split('-').reverse().join('.');

export function reportCsv(r: DayReport): Buffer {
  const date = ruDate(r.day);
  const rows: string[][] = [HEADER];
  for (const m of r.matched)
    rows.push([
      date,
      r.account,
      'сходится',
      m.reference,
      m.sessionId,
      m.bankSystemId,
      rub(m.amount),
      rub(m.amount),
      '',
      '',
      stateRu(m.by),
    ]);
  for (const d of r.found) {
    const kind = DIFFERENCE_KINDS[d.kind];
    rows.push([
      date,
      r.account,
      'расхождение',
      d.reference ?? '',
      d.sessionId ?? '',
      d.bankSystemId ?? '',
      rub(d.payrunAmount),
      rub(d.bankAmount),
      `${d.kind}: ${kind.ru}`,
      kind.actionRu,
      stateRu(d.state),
    ]);
  }
  for (const s of r.settled)
    rows.push([
      date,
      r.account,
      'подтверждено позже',
      '',
      '',
      s.bankSystemId,
      '',
      '',
      s.key,
      '',
      stateRu('matched'),
    ]);
  for (const o of r.other)
    rows.push([
      date,
      r.account,
      o.type === 'credit' ? 'зачисление' : 'списание',
      '',
      '',
      o.bankSystemId,
      '',
      rub(o.amount),
      '',
      '',
      '',
    ]);
  rows.push([date, r.account, 'входящий остаток', '', '', '', '', rub(r.totals.opening), '', '', '']);
  rows.push([date, r.account, 'списано', '', '', '', '', rub(r.totals.debet), '', '', '']);
  rows.push([date, r.account, 'поступило', '', '', '', '', rub(r.totals.credit), '', '', '']);
  rows.push([date, r.account, 'исходящий остаток', '', '', '', '', rub(r.totals.closing), '', '', '']);
  rows.push([
    date,
    r.account,
    'выплаты сходятся',
    String(r.payoutsMatched.count),
    '',
    '',
    rub(r.payoutsMatched.amount),
    '',
    '',
    '',
    '',
  ]);
  // Russian whatever PAYRUN_LANG says, like its headers: `≠` in a difference's name becomes «не равно».
  const text = stringify(rows, { delimiter: ';', record_delimiter: '\r\n' });
  return iconv.encode(writableIn(text, 'windows-1251', 'ru'), 'win1251');
}

export function reportJson(r: DayReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}
