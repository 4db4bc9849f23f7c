/**
 * Payout references used by more than one row of a file, found in bounded memory: every use goes to
 * a SpillSorter (reference, then row), and the sorted uses are read once, a reference at a time. Each
 * row of a reused reference gets markDuplicateReferences' error, naming every row that uses it.
 */
import type { RowError } from './types';
import { SpillSorter, SPILL_LIMIT } from './spill';
import { duplicateReferenceError } from './validate';

/** One row's use of a reference; `validKopecks`: its amount when the row was otherwise valid, else null. */
type Use = [reference: string, row: number, validKopecks: number | null];
/** A duplicate row's error, and its amount when it had passed every other check. */
export type DuplicateRow = [row: number, validKopecks: number | null, error: RowError];

const byReferenceThenRow = (a: Use, b: Use): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);

export interface Duplicates {
  /** Every row of a reused reference, in row order. */
  rows: SpillSorter<DuplicateRow>;
  /** Of those, the rows that were otherwise valid, and their amounts' sum. */
  validRows: number;
  validKopecks: number;
}

export class DuplicateIndex {
  private readonly uses: SpillSorter<Use>;

  constructor(private readonly limit = SPILL_LIMIT) {
    this.uses = new SpillSorter<Use>(byReferenceThenRow, limit);
  }

  /** How many sorted runs went to disk so far. */
  get spilledRuns(): number {
    return this.uses.spilledRuns;
  }

  add(reference: string, row: number, validKopecks: number | null): void {
    if (reference) this.uses.add([reference, row, validKopecks]);
  }

  /** Reads the uses once; the caller closes the result's `rows`. The index is closed. */
  async resolve(): Promise<Duplicates> {
    const rows = new SpillSorter<DuplicateRow>((a, b) => a[0] - b[0], this.limit);
    let validRows = 0;
    let validKopecks = 0;
    let group: Use[] = [];
    const settle = (): void => {
      if (group.length > 1) {
        const numbers = group.map((use) => use[1]);
        for (const [reference, row, kopecks] of group) {
          rows.add([row, kopecks, duplicateReferenceError(row, reference, numbers)]);
          if (kopecks !== null) {
            validRows++;
            validKopecks += kopecks;
          }
        }
      }
      group = [];
    };
    try {
      for await (const use of this.uses.sorted()) {
        if (group.length > 0 && group[0]![0] !== use[0]) settle();
        group.push(use);
      }
      settle();
    } finally {
      this.uses.close();
    }
    return { rows, validRows, validKopecks };
  }
}
