/**
 * Amounts that deserve a second look before money moves: the rows far above what the file typically
 * pays (a mistyped 150 000 000,00 for 150 000,00), and the largest rows of a batch waiting for funds.
 */
import type { BatchStore } from '../store/contract';

export interface AmountRow {
  row: number;
  reference: string;
  amount: number;
}

/** A row is far above the file's typical amount at this many times its median. */
export const FAR_ABOVE_MEDIAN = 10;
/** Too few rows have no typical amount worth comparing with. */
const MIN_ROWS_FOR_TYPICAL = 5;

/** The median amount (the lower middle of an even count), kopecks. */
export function medianKopecks(amounts: readonly number[]): number {
  const sorted = [...amounts].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** Rows paying at least FAR_ABOVE_MEDIAN times the file's median, largest first; none in a small file. */
export function farAboveTypical(rows: readonly AmountRow[]): { medianKopecks: number; rows: AmountRow[] } {
  const median = medianKopecks(rows.map((r) => r.amount));
  if (rows.length < MIN_ROWS_FOR_TYPICAL || median <= 0) return { medianKopecks: median, rows: [] };
  return {
    medianKopecks: median,
    rows: rows.filter((r) => r.amount >= median * FAR_ABOVE_MEDIAN).sort((a, b) => b.amount - a.amount),
  };
}

/** The `n` largest rows, largest first (rows in row order on a tie); keeps only `n` at a time. */
export function largestRows(rows: Iterable<AmountRow>, n: number): AmountRow[] {
  const top: AmountRow[] = [];
  for (const r of rows) {
    if (top.length === n && r.amount <= top[n - 1]!.amount) continue;
    top.push(r);
    top.sort((a, b) => b.amount - a.amount || a.row - b.row);
    if (top.length > n) top.pop();
  }
  return top;
}

/** The largest rows of a stored batch, read a chunk at a time; undefined when the store has no such batch. */
export async function largestStoredRows(
  store: BatchStore,
  batchId: string,
  n: number,
): Promise<AmountRow[] | undefined> {
  if (!(await store.exists(batchId))) return undefined; // the status says what the workflow knows
  const { chunkCount } = await store.readMeta(batchId);
  const rows: AmountRow[] = [];
  for (let i = 0; i < chunkCount; i++) {
    const chunk = (await store.readChunk(batchId, i)).map((r) => ({
      row: r.row,
      reference: r.request.reference,
      amount: r.request.amount,
    }));
    // Only the n largest so far are kept between chunks: a batch of any size in the same memory.
    rows.splice(0, rows.length, ...largestRows([...rows, ...chunk], n));
  }
  return rows;
}
