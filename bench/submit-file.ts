/**
 * A batch file of any size for submitting, written a block at a time: the three methods by turns
 * (card, bank account, СБП), amounts in rubles, and, when asked, errors planted at known rows and
 * references used twice. Shared by bench/submit-memory.ts and test/batch/submit-stream.test.ts.
 *
 * Row n = i + 1 (i = 1 … rows). Planted: every `every`-th row (i % every === 7) one of five
 * mistakes by turns; every `every`-th + 40 reuses the reference of the row before it (both rows are
 * named as duplicates).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { TEST_CARDS, TEST_INNS, TEST_PHONES } from '../src/sandbox/test-values';

const HEADER =
  'reference,last_name,first_name,inn,method,card_number,bik,account,phone,bank_id,amount,service_name';
const BIK = '044525225';
const ACCOUNT = '40817810300000123456';
const BANK_ID = '100000000111';
const BLOCK = 10_000;

/** The rule each planted mistake breaks, by turns. */
const PLANTED: { rule: string; cells: (cells: string[]) => void }[] = [
  { rule: 'amount_format', cells: (c) => (c[10] = 'сто') },
  { rule: 'inn_checksum', cells: (c) => (c[3] = '770700000191') },
  { rule: 'card_luhn', cells: (c) => c.splice(4, 6, 'card', '2200000000000013', '', '', '', '') },
  { rule: 'method_unknown', cells: (c) => (c[4] = 'почта') },
  { rule: 'required', cells: (c) => (c[1] = '') },
];

export interface SubmitFile {
  rows: number;
  /** Every planted mistake: its row (as a spreadsheet numbers it) and the rule it breaks. */
  planted: { row: number; rule: string }[];
  /** Rows (as a spreadsheet numbers them) that share a reference with another. */
  duplicateRows: number[];
}

function cellsOf(i: number): string[] {
  const kopecks = ((i * 7919) % 5_000_000) + 100;
  const amount = `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
  const base = [`s-${i}`, 'Иванова', 'Анна', TEST_INNS.SELF_EMPLOYED_LINKED];
  const method = i % 3;
  const how =
    method === 0
      ? ['card', TEST_CARDS.SUCCESS, '', '', '', '']
      : method === 1
        ? ['bank_account', '', BIK, ACCOUNT, '', '']
        : ['fps', '', '', '', TEST_PHONES.FOUND, BANK_ID];
  return [...base, ...how, amount, 'Дизайн'];
}

export function writeSubmitFile(path: string, rows: number, every = 0): SubmitFile {
  writeFileSync(path, HEADER + '\n', { mode: 0o600 });
  const planted: SubmitFile['planted'] = [];
  const duplicateRows: number[] = [];
  let lines: string[] = [];
  for (let i = 1; i <= rows; i++) {
    const cells = cellsOf(i);
    if (every > 0 && i % every === 7) {
      const mistake = PLANTED[Math.floor(i / every) % PLANTED.length]!;
      mistake.cells(cells);
      planted.push({ row: i + 1, rule: mistake.rule });
    }
    if (every > 0 && i % every === 40) {
      cells[0] = `s-${i - 1}`;
      duplicateRows.push(i, i + 1);
    }
    lines.push(cells.join(','));
    if (lines.length >= BLOCK) {
      appendFileSync(path, lines.join('\n') + '\n');
      lines = [];
    }
  }
  if (lines.length > 0) appendFileSync(path, lines.join('\n') + '\n');
  return { rows, planted, duplicateRows };
}
