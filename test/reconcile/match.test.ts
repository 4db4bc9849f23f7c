import { addDays, businessDaysBetween, daysAfter, moscowDay, parseDay } from '../../src/reconcile/days';
import { DIFFERENCE_KIND_NAMES } from '../../src/reconcile/kinds';
import { type BankLine, type DayInput, matchDay, type PayrunPayout } from '../../src/reconcile/match';
import { snapshotOf } from '../../src/reconcile/snapshot';

const DAY = '2026-11-23';
const cp = { name: 'Sandbox Bank JSC', account: '30101810400000000225', bankCode: '044525225' };
const line = (id: string, amount: number, extra: Partial<BankLine> = {}): BankLine => ({
  bankSystemId: id,
  type: 'debet',
  amount,
  date: DAY,
  purpose: `Payout ${id}`,
  counterparty: cp,
  ...extra,
});
const payout = (
  ref: string,
  session: string,
  amount: number,
  extra: Partial<PayrunPayout> = {},
): PayrunPayout => ({
  reference: ref,
  sessionId: session,
  amount,
  state: 'succeeded',
  bankDate: DAY,
  ...extra,
});
/** A day whose totals follow from its lines, opening 1 000 000,00 ₽. */
function day(lines: BankLine[], payouts: PayrunPayout[], extra: Partial<DayInput> = {}): DayInput {
  const debet = lines.filter((l) => l.type === 'debet').reduce((s, l) => s + l.amount, 0);
  const credit = lines.filter((l) => l.type === 'credit').reduce((s, l) => s + l.amount, 0);
  const opening = 100_000_000;
  return {
    account: '40702810700000000002',
    day: DAY,
    lines,
    totals: { opening, closing: opening + credit - debet, debet, credit },
    payouts,
    open: [],
    ...extra,
  };
}
const kinds = (input: DayInput) =>
  matchDay(input).found.map((d) => `${d.kind}:${d.reference ?? d.bankSystemId}`);

describe('matching one day of the statement with payrun payouts', () => {
  it('a clean day: every line matched by session id, no differences', () => {
    const r = matchDay(
      day(
        [line('tx1', 150_000, { sessionId: 'ps_1' }), line('tx2', 20_000, { sessionId: 'ps_2' })],
        [payout('r1', 'ps_1', 150_000), payout('r2', 'ps_2', 20_000)],
      ),
    );
    expect(r.found).toEqual([]);
    expect(r.matched.map((m) => [m.reference, m.by])).toEqual([
      ['r1', 'session_id'],
      ['r2', 'session_id'],
    ]);
  });

  it('each kind of difference is named once with its reference', () => {
    const input = day(
      [
        line('tx1', 150_000, { sessionId: 'ps_1' }),
        line('tx2', 99_000, { sessionId: 'ps_2' }), // changed amount
        line('tx3', 5_000, { sessionId: 'ps_other' }), // outside payrun
        line('tx4', 7_000, { sessionId: 'ps_4', type: 'credit' }), // a return
        line('tx5', 1_000_000, { type: 'credit', sessionId: undefined, purpose: 'top-up' }), // not a payout
      ],
      [
        payout('r1', 'ps_1', 150_000),
        payout('r2', 'ps_2', 100_000),
        payout('r3', 'ps_3', 30_000), // missing
        payout('r4', 'ps_4', 7_000, { bankDate: '2026-11-18', state: 'returned' }),
        payout('r5', 'ps_5', 40_000, { bankDate: '2026-11-24' }), // another day: not missing here
      ],
    );
    expect(kinds(input).sort()).toEqual(
      ['amount_differs:r2', 'missing_from_statement:r3', 'returned:r4', 'unknown_to_payrun:tx3'].sort(),
    );
    expect(matchDay(input).other.map((o) => o.bankSystemId)).toEqual(['tx5']);
  });

  it('a debit without a session id is never a match: same amount and account is a pair to confirm, else unknown', () => {
    const account = '40817810000000000001';
    const r = matchDay(
      day(
        [
          line('tx1', 30_000, { counterparty: { ...cp, account } }),
          line('tx2', 30_000, { counterparty: { ...cp, account: '40817810000000000999' } }),
        ],
        [payout('r1', 'ps_1', 30_000, { counterpartyAccount: account })],
      ),
    );
    expect(r.matched).toEqual([]);
    expect(r.found.map((d) => `${d.kind}:${d.bankSystemId}:${d.reference ?? ''}`).sort()).toEqual([
      'paired_by_amount:tx1:r1',
      'unknown_to_payrun:tx2:',
    ]);
  });

  it('an unbooked card payout and an outside debit of the same amount are two differences', () => {
    const r = matchDay(day([line('tx1', 4_710_263)], [payout('r1', 'ps_1', 4_710_263)]));
    expect(r.matched).toEqual([]);
    expect(r.found.map((d) => `${d.kind}:${d.reference ?? d.bankSystemId}`).sort()).toEqual([
      'missing_from_statement:r1',
      'unknown_to_payrun:tx1',
    ]);
  });

  it("a re-run compares with the day's previous statement: each move is one statement_changed", () => {
    const first = day(
      [line('tx1', 150_000, { sessionId: 'ps_1' }), line('tx2', 4_710_263, { sessionId: 'ps_2' })],
      [payout('r1', 'ps_1', 150_000), payout('r2', 'ps_2', 4_710_263)],
    );
    const previous = snapshotOf(first.lines, first.totals);
    expect(matchDay({ ...first, previous }).found).toEqual([]);
    // The bank corrected the statement: tx2 gone, the closing balance with it.
    const corrected = day([first.lines[0]!], first.payouts, { previous });
    const found = matchDay(corrected).found;
    expect(found.map((d) => `${d.kind}:${d.reference ?? ''}`).sort()).toEqual([
      'missing_from_statement:r2',
      'statement_changed:',
      'statement_changed:r2',
    ]);
    const gone = found.find((d) => d.kind === 'statement_changed' && d.reference === 'r2')!;
    expect(gone).toMatchObject({
      key: `statement_changed:${first.account}:${DAY}:tx2:removed`,
      bankSystemId: 'tx2',
      sessionId: 'ps_2',
    });
    expect(gone.detail).toBe('line tx2 gone: was debit 47 102,63 ₽ (ps_2)');
    // Against the corrected reading itself, nothing moved.
    const again = { ...corrected, previous: snapshotOf(corrected.lines, corrected.totals) };
    expect(matchDay(again).found.map((d) => d.kind)).toEqual(['missing_from_statement']);
  });

  it('a late line settles the missing_from_statement of an earlier day, and finds nothing new', () => {
    const open = matchDay(
      day([], [payout('r1', 'ps_1', 30_000, { bankDate: '2026-11-20' })], { day: '2026-11-20' }),
    ).found;
    expect(open.map((d) => d.key)).toEqual(['missing_from_statement:ps_1']);
    const later = matchDay(
      day(
        [line('tx9', 30_000, { sessionId: 'ps_1' })],
        [payout('r1', 'ps_1', 30_000, { bankDate: '2026-11-20' })],
        {
          open,
        },
      ),
    );
    expect(later.found).toEqual([]);
    expect(later.settled).toEqual([{ key: 'missing_from_statement:ps_1', bankSystemId: 'tx9', day: DAY }]);
  });

  it('a line for a payout payrun recorded as failed is money payrun does not know it paid', () => {
    expect(
      kinds(
        day(
          [line('tx1', 10_000, { sessionId: 'ps_1' })],
          [payout('r1', 'ps_1', 10_000, { state: 'failed' })],
        ),
      ),
    ).toEqual(['unknown_to_payrun:r1']);
  });

  it('balances: closing must follow from opening and turnover, and the opening from the previous closing', () => {
    const clean = day([line('tx1', 10_000, { sessionId: 'ps_1' })], [payout('r1', 'ps_1', 10_000)]);
    expect(kinds({ ...clean, previousClosing: clean.totals.opening })).toEqual([]);
    expect(kinds({ ...clean, totals: { ...clean.totals, closing: clean.totals.closing + 1 } })).toEqual([
      'balance_mismatch:undefined',
    ]);
    const r = matchDay({ ...clean, previousClosing: 5 });
    expect(r.found[0]).toMatchObject({
      kind: 'balance_mismatch',
      key: `balance_mismatch:${clean.account}:${DAY}`,
    });
    expect(r.found[0]!.detail).toMatch(/previous day's closing 5/);
    expect(r.found).toHaveLength(1);
  });

  it('names seven kinds', () => {
    expect(DIFFERENCE_KIND_NAMES).toEqual([
      'missing_from_statement',
      'unknown_to_payrun',
      'amount_differs',
      'returned',
      'balance_mismatch',
      'statement_changed',
      'paired_by_amount',
    ]);
  });
});

describe('Moscow business days', () => {
  it('splits at Moscow midnight, not UTC', () => {
    expect(moscowDay(Date.parse('2026-11-23T20:59:59Z'))).toBe('2026-11-23');
    expect(moscowDay(Date.parse('2026-11-23T21:00:00Z'))).toBe('2026-11-24');
  });
  it('counts Monday to Friday', () => {
    expect(businessDaysBetween('2026-11-20', '2026-11-23')).toBe(1); // Friday → Monday
    expect(businessDaysBetween('2026-11-16', '2026-11-25')).toBe(7);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysAfter('2026-11-20', '2026-11-23', 2)).toEqual(['2026-11-22', '2026-11-23']);
  });
  it('refuses dates that are not', () => {
    expect(parseDay('2026-02-30')).toBeUndefined();
    expect(parseDay('2026-2-3')).toBeUndefined();
    expect(parseDay('2026-02-28')).toBe('2026-02-28');
  });
});
