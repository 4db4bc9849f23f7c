/**
 * Test data generators that compute check digits independently of src/domain/rules.ts
 * (different formulation), so a bug in one does not hide a bug in the other.
 */
import iconv from 'iconv-lite';

/** Appends the Luhn digit to a prefix: the resulting number's Luhn sum is 0 mod 10. */
export function luhnCard(prefix: string, length = 16): string {
  let body = prefix;
  let n = 0;
  while (body.length < length - 1) body += String((n++ * 7 + 3) % 10);
  for (let d = 0; d <= 9; d++) {
    const candidate = body + d;
    const sum = candidate
      .split('')
      .reverse()
      .map(Number)
      .map((x, i) => (i % 2 ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][x]! : x))
      .reduce((a, b) => a + b, 0);
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

/** A 12-digit INN with correct control digits from a 10-digit body. */
export function inn12(body10: string): string {
  const w11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
  const w12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
  const ctl = (s: string, w: number[]) => (w.reduce((acc, wi, i) => acc + wi * Number(s[i]), 0) % 11) % 10;
  const eleven = body10 + ctl(body10, w11);
  return eleven + ctl(eleven, w12);
}

/** Sets the account's 9th digit (the key) so the 3-digit bank part + account passes the 7-1-3 check. */
export function accountFor(bik: string, account20: string): string {
  const tail = bik.slice(-3);
  const bankPart = ['000', '001', '002'].includes(tail) ? '0' + bik.slice(4, 6) : tail;
  for (let k = 0; k <= 9; k++) {
    const account = account20.slice(0, 8) + k + account20.slice(9);
    const digits = bankPart + account;
    let sum = 0;
    for (let i = 0; i < 23; i++) sum += (Number(digits[i]) * [7, 1, 3][i % 3]!) % 10;
    if (sum % 10 === 0) return account;
  }
  throw new Error('unreachable');
}

/** Valid sample data. */
export const CARD = luhnCard('220220', 16);
export const CARD2 = luhnCard('427638', 16);
export const INN = inn12('7712345678');
export const INN2 = inn12('5001007322');
export const INN3 = inn12('7701234500');
export const BIK = '044525225';
export const ACCOUNT = accountFor(BIK, '40817810000000123456');
export const RKC_BIK = '044525000';
export const RKC_ACCOUNT = accountFor(RKC_BIK, '40817810000000654321');

export const HEADER = [
  'reference',
  'last_name',
  'first_name',
  'middle_name',
  'inn',
  'method',
  'card_number',
  'bik',
  'account',
  'phone',
  'bank_id',
  'amount',
  'currency',
  'service_name',
  'description',
  'email',
  'metadata',
  'self_employed',
];

export type Row = Partial<Record<(typeof HEADER)[number], string>>;

export function cardRow(over: Row = {}): Row {
  return {
    reference: 'p-1',
    last_name: 'Иванов',
    first_name: 'Иван',
    middle_name: 'Иванович',
    inn: INN,
    method: 'card',
    card_number: CARD,
    amount: '1500.00',
    currency: 'RUB',
    service_name: 'Дизайн логотипа',
    email: 'ivanov@example.ru',
    ...over,
  };
}

export function accountRow(over: Row = {}): Row {
  return cardRow({
    reference: 'p-2',
    method: 'bank_account',
    card_number: '',
    bik: BIK,
    account: ACCOUNT,
    ...over,
  });
}

export function fpsRow(over: Row = {}): Row {
  return cardRow({
    reference: 'p-3',
    method: 'fps',
    card_number: '',
    phone: '+7 (912) 345-67-89',
    bank_id: '100000000111',
    description: 'Оплата по договору 15',
    ...over,
  });
}

const quote = (v: string, d: string) =>
  /["\r\n]/.test(v) || v.includes(d) ? `"${v.replace(/"/g, '""')}"` : v;

/** Builds a CSV file text from rows keyed by header. */
export function csvText(
  rows: Row[],
  opts: { header?: string[]; names?: Record<string, string>; delimiter?: string; eol?: string } = {},
): string {
  const header = opts.header ?? HEADER;
  const d = opts.delimiter ?? ',';
  const eol = opts.eol ?? '\n';
  const lines = [header.map((h) => quote(opts.names?.[h] ?? h, d)).join(d)];
  for (const r of rows) lines.push(header.map((h) => quote(r[h] ?? '', d)).join(d));
  return lines.join(eol) + eol;
}

export const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
export const cp1251 = (text: string): Buffer => iconv.encode(text, 'win1251');
