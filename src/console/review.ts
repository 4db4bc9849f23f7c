/**
 * What an approver reviews before deciding: a batch's rows as people may see them (card, account and
 * phone numbers and tax numbers masked, as the reports mask them), per-recipient totals, who was never
 * paid before, which rows a limit would refuse, and the change from the last file of the same name.
 * Pure: built from the store's rows by review-cache.ts, read by the page and the download.
 */
import type { StoredRow } from '../batch/store/files';
import { maskDigits } from '../csv/report';
import type { PayoutMethod, Recipient } from '../domain';
import { maskedInn } from '../recipient/read';

/** Where a payout goes, masked as the reports mask it: a card's BIN and last four, else the last four. */
export function maskedPayee(method: PayoutMethod): string {
  switch (method.type) {
    case 'card':
      return maskDigits(method.cardNumber, 'card');
    case 'bank_account':
      return `${method.bik} ${maskDigits(method.account, 'last4')}`;
    case 'fps':
      return `${maskDigits(method.phone, 'last4')} ${method.bankId}`;
  }
}

/** Last, first and middle name, as the file gives them. */
export const personName = (r: Recipient) => [r.lastName, r.firstName, r.middleName].filter(Boolean).join(' ');

export interface ReviewRow {
  row: number;
  reference: string;
  name: string;
  /** Index into BatchReview.people. */
  person: number;
  method: PayoutMethod['type'];
  payee: string;
  amount: number;
  selfEmployed: boolean;
}

export interface ReviewPerson {
  /** The whole tax number: stays on the server (ledger look-ups, comparisons); pages show innMasked. */
  inn: string;
  innMasked: string;
  /** Every name the file gives this tax number, in the order first met. */
  names: string[];
  rows: number;
  total: number;
  /** Nothing was ever paid to this tax number by another batch of the store. */
  fresh: boolean;
}

export type Order = 'file' | 'amount';
export type Only = 'all' | 'flagged';

export interface PersonChange {
  innMasked: string;
  name: string;
  before: number;
  after: number;
}

/** The difference from the last batch of the same file name, by recipient. */
export interface ReviewDiff {
  batchId: string;
  submittedAt: string;
  rowsBefore: number;
  totalBefore: number;
  added: number;
  removed: number;
  changed: number;
  /** Every recipient whose total changed (added and gone too), the largest change first. */
  changes: PersonChange[];
}

/** One recipient's rows and money, as the diff compares two batches. */
export type PersonTotals = Map<string, { name: string; total: number }>;

export class BatchReview {
  readonly rows: ReviewRow[] = [];
  readonly people: ReviewPerson[] = [];
  total = 0;
  /** Rows a limit would refuse, by row number: why, in the language set. */
  limitFlags = new Map<number, string>();
  private readonly personIndex = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private readonly selections = new Map<string, number[]>();
  private peopleOrder?: number[];

  /** Adds the store's rows in file order (a chunk at a time). */
  add(rows: readonly StoredRow[]): void {
    for (const { row, request: r } of rows) {
      const inn = r.recipient.taxReference;
      const name = this.intern(personName(r.recipient));
      let person = this.personIndex.get(inn);
      if (person === undefined) {
        person = this.people.length;
        this.personIndex.set(inn, person);
        this.people.push({ inn, innMasked: maskedInn(inn), names: [], rows: 0, total: 0, fresh: true });
      }
      const p = this.people[person]!;
      if (!p.names.includes(name)) p.names.push(name);
      p.rows++;
      p.total += r.amount;
      this.total += r.amount;
      this.rows.push({
        row,
        reference: r.reference,
        name,
        person,
        method: r.method.type,
        payee: this.intern(maskedPayee(r.method)),
        amount: r.amount,
        selfEmployed: r.selfEmployed,
      });
    }
  }

  /** Names and payees repeat across rows: one string each, however many rows carry it. */
  private intern(s: string): string {
    const known = this.names.get(s);
    if (known !== undefined) return known;
    this.names.set(s, s);
    return s;
  }

  personOf(inn: string): ReviewPerson | undefined {
    const i = this.personIndex.get(inn);
    return i === undefined ? undefined : this.people[i];
  }

  /** Marks who was paid before (by tax number); everyone else stays fresh. */
  markPaidBefore(paidBefore: (inn: string) => boolean): void {
    for (const p of this.people) p.fresh = !paidBefore(p.inn);
    this.selections.clear();
  }

  setLimitFlags(flags: Map<number, string>): void {
    this.limitFlags = flags;
    this.selections.clear();
  }

  flagged(r: ReviewRow): boolean {
    return this.limitFlags.has(r.row) || this.people[r.person]!.fresh;
  }

  get freshPeople(): number {
    return this.people.filter((p) => p.fresh).length;
  }

  /** Row indexes in the order asked (largest first: ties in file order), kept for the next page. */
  select(order: Order, only: Only): number[] {
    const key = `${order}:${only}`;
    let picked = this.selections.get(key);
    if (!picked) {
      picked = [];
      for (let i = 0; i < this.rows.length; i++)
        if (only === 'all' || this.flagged(this.rows[i]!)) picked.push(i);
      if (order === 'amount') picked.sort((a, b) => this.rows[b]!.amount - this.rows[a]!.amount || a - b);
      this.selections.set(key, picked);
    }
    return picked;
  }

  /** People by their total in this batch, largest first. */
  peopleByTotal(): number[] {
    this.peopleOrder ??= this.people
      .map((_, i) => i)
      .sort((a, b) => this.people[b]!.total - this.people[a]!.total || a - b);
    return this.peopleOrder;
  }

  totals(): PersonTotals {
    return new Map(this.people.map((p) => [p.inn, { name: p.names[0] ?? '', total: p.total }]));
  }
}

/** A page of `items` (1-based, clamped to the pages there are). */
export function pageOf<T>(items: readonly T[], page: number, size: number) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), pages);
  const start = (current - 1) * size;
  return { page: current, pages, start, items: items.slice(start, start + size) };
}

/** What changed by recipient from `before` (the last batch of the file's name) to `after` (this one). */
export function diffTotals(
  before: PersonTotals,
  after: PersonTotals,
): Pick<ReviewDiff, 'added' | 'removed' | 'changed' | 'changes'> {
  const changes: PersonChange[] = [];
  let added = 0;
  let removed = 0;
  let changed = 0;
  for (const [inn, now] of after) {
    const was = before.get(inn);
    if (!was) added++;
    else if (was.total !== now.total) changed++;
    else continue;
    changes.push({ innMasked: maskedInn(inn), name: now.name, before: was?.total ?? 0, after: now.total });
  }
  for (const [inn, was] of before)
    if (!after.has(inn)) {
      removed++;
      changes.push({ innMasked: maskedInn(inn), name: was.name, before: was.total, after: 0 });
    }
  changes.sort((a, b) => Math.abs(b.after - b.before) - Math.abs(a.after - a.before));
  return { added, removed, changed, changes };
}
