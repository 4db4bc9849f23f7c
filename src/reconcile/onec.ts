import * as iconv from 'iconv-lite';
import { writableIn } from '../i18n';
import { formatRubles } from '../money';
import type { BankLine, MatchedLine, PayrunPayout, StatementTotals } from './match';

/**
 * The day's movements in 1C's client-bank exchange format (`1CClientBankExchange`, version 1.03): the
 * text file 1C:Accounting and other Russian accounting systems import as a bank statement.
 * Windows-1251, CRLF, `Key=Value` lines; amounts in roubles with a dot; dates DD.MM.YYYY.
 * Every line of the statement becomes a document, payouts (debits) and credits alike: 1C posts each
 * document to the account and checks its balances against the statement section, so a file of
 * payouts only would leave the account's balance in 1C wrong. Sections and fields: docs/reconciliation.md.
 * A payout payrun matched names its recipient from payrun's own record (name, INN, the account of a
 * bank transfer; a card's masked number in the purpose, since the money went through the bank's
 * account) and its reference; a return (a credit under a payout's session) names the payout it reverses.
 * The file names people: it is an operator's file, kept owner-only like the reports.
 */
export interface OneCParty {
  name: string;
  inn: string;
  account: string;
}

/** The account holder (the payer of payouts): its name and INN from the payer configuration. */
export type AccountHolder = Omit<OneCParty, 'account'>;

const rub = (kopecks: number) => formatRubles(kopecks, { decimalSeparator: '.', group: '' });
const ruDate = (day: string) => day.split('-').reverse().join('.');
/** 1C reads one line per field: no line breaks and no '=' ambiguity matter in values after the first '='. */
const clean = (v: string | undefined) => (v ?? '').replace(/[\r\n]+/g, ' ').trim();

export function oneCExport(input: {
  day: string;
  account: string;
  us: AccountHolder;
  lines: BankLine[];
  matched: MatchedLine[];
  /** payrun's payouts of the day, by session: who each one paid. */
  payouts?: PayrunPayout[];
  totals: StatementTotals;
  createdAt: Date;
}): Buffer {
  const { day, account, totals } = input;
  const us: OneCParty = { ...input.us, account };
  const created = new Date(input.createdAt.getTime() + 3 * 3600_000).toISOString();
  const byLine = new Map(input.matched.map((m) => [m.bankSystemId, m]));
  const bySession = new Map((input.payouts ?? []).map((p) => [p.sessionId, p]));
  const out: string[] = [
    '1CClientBankExchange',
    'ВерсияФормата=1.03',
    'Кодировка=Windows',
    'Отправитель=payrun',
    'Получатель=',
    `ДатаСоздания=${ruDate(created.slice(0, 10))}`,
    `ВремяСоздания=${created.slice(11, 19)}`,
    `ДатаНачала=${ruDate(day)}`,
    `ДатаКонца=${ruDate(day)}`,
    `РасчСчет=${account}`,
    'Документ=Платежное поручение',
    'СекцияРасчСчет',
    `ДатаНачала=${ruDate(day)}`,
    `ДатаКонца=${ruDate(day)}`,
    `РасчСчет=${account}`,
    `НачальныйОстаток=${rub(totals.opening)}`,
    `ВсегоПоступило=${rub(totals.credit)}`,
    `ВсегоСписано=${rub(totals.debet)}`,
    `КонечныйОстаток=${rub(totals.closing)}`,
    'КонецРасчСчет',
  ];
  for (const line of input.lines) {
    const cp = line.counterparty;
    const ours = line.type === 'debet' ? byLine.get(line.bankSystemId) : undefined;
    const returned = line.type === 'credit' && line.sessionId ? bySession.get(line.sessionId) : undefined;
    const payout = ours ? bySession.get(ours.sessionId) : returned;
    const them = counterparty(line, payout?.recipient);
    const [payer, payee] = line.type === 'debet' ? [us, them] : [them, us];
    const purpose = ours
      ? `${line.purpose}; payrun ${ours.reference}${payout?.recipient?.maskedCard ? `; карта ${payout.recipient.maskedCard}` : ''}`
      : returned
        ? `${line.purpose}; возврат выплаты payrun ${returned.reference} (${returned.sessionId})`
        : line.purpose;
    out.push(
      'СекцияДокумент=Платежное поручение',
      `Номер=${line.bankSystemId.replace(/\D/g, '').slice(-6) || line.bankSystemId}`,
      `Дата=${ruDate(line.date)}`,
      `Сумма=${rub(line.amount)}`,
      `ПлательщикСчет=${payer.account}`,
      `Плательщик=${clean(payer.name)}`,
      `ПлательщикИНН=${payer.inn}`,
      `Плательщик1=${clean(payer.name)}`,
      `ПолучательСчет=${payee.account}`,
      `Получатель=${clean(payee.name)}`,
      `ПолучательИНН=${payee.inn}`,
      `Получатель1=${clean(payee.name)}`,
      ...(line.type === 'debet' ? [`ПолучательБИК=${cp.bankCode}`] : [`ПлательщикБИК=${cp.bankCode}`]),
      'ВидОплаты=01',
      'Очередность=5',
      `НазначениеПлатежа=${clean(purpose)}`,
      line.type === 'debet' ? `ДатаСписано=${ruDate(line.date)}` : `ДатаПоступило=${ruDate(line.date)}`,
      'КонецДокумента',
    );
  }
  out.push('КонецФайла');
  // 1C's file is Russian; a bank's purpose with `₽` in it is written with «руб.», not `?`.
  return iconv.encode(writableIn(`${out.join('\r\n')}\r\n`, 'windows-1251', 'ru'), 'win1251');
}

/**
 * The other side of a line: the person payrun paid (or who returned it), named from payrun's record,
 * with the account of a bank transfer; the bank's own counterparty otherwise (a card payout goes
 * through the bank's account, which is where the money went).
 */
function counterparty(line: BankLine, person: PayrunPayout['recipient']): OneCParty {
  const cp = line.counterparty;
  if (!person) return { name: cp.name, inn: cp.inn ?? '', account: cp.account };
  return { name: person.name, inn: person.inn ?? '', account: person.account ?? cp.account };
}
