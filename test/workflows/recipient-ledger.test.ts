import { IncomeLedger, moscowYearMonth } from '../../workflows/recipient-ledger/ledger';
import { REFUSED_KEPT } from '../../workflows/recipient-ledger/contract';
import type { ReservationToJudge } from '../../workflows/recipient-ledger/contract';

const CAP = 2_400_000_00;
const req = (
  reference: string,
  amount: number,
  at: string,
  extra: Partial<ReservationToJudge> = {},
): ReservationToJudge => ({
  reference,
  workflowId: `payout-${reference}`,
  amount,
  selfEmployed: true,
  at,
  limits: { yearlyCapKopecks: CAP },
  ...extra,
});

describe('the recipient ledger', () => {
  it('counts the year and month in Moscow time: 23:59:59 on 31 December is last year', () => {
    expect(moscowYearMonth('2026-12-31T20:59:59.999Z')).toEqual({ year: 2026, month: '2026-12' });
    expect(moscowYearMonth('2026-12-31T21:00:00.000Z')).toEqual({ year: 2027, month: '2027-01' });
  });

  it('reserves up to the cap, refuses what would pass it with the headroom, and answers a retry the same', () => {
    const l = new IncomeLedger();
    expect(l.reserve(req('a', 2_000_000_00, '2026-06-01T10:00:00Z'))).toEqual({
      ok: true,
      year: 2026,
      headroomKopecks: 400_000_00,
    });
    expect(l.reserve(req('b', 500_000_00, '2026-06-01T10:00:00Z'))).toEqual({
      ok: false,
      limit: 'yearly_cap',
      limitKopecks: CAP,
      headroomKopecks: 400_000_00,
      year: 2026,
    });
    // The same payout asking again (a retried activity, a restarted worker) finds its reservation.
    expect(l.reserve(req('a', 2_000_000_00, '2026-06-01T10:05:00Z'))).toMatchObject({
      ok: true,
      headroomKopecks: 400_000_00,
    });
    expect(l.open()).toHaveLength(1);
    expect(l.reserve(req('c', 400_000_00, '2026-06-02T10:00:00Z'))).toEqual({
      ok: true,
      year: 2026,
      headroomKopecks: 0,
    });
  });

  it('turns a paid reservation into income once, releases a failed one, takes a returned one back', () => {
    const l = new IncomeLedger();
    l.reserve(req('paid', 1_000_000_00, '2026-03-01T10:00:00Z'));
    l.reserve(req('failed', 1_000_000_00, '2026-03-01T10:00:00Z'));
    l.settle('paid', 'paid');
    l.settle('paid', 'paid'); // a second look counts nothing twice
    l.settle('failed', 'not_paid');
    expect(l.view().years[0]).toMatchObject({ year: 2026, paidKopecks: 1_000_000_00, reservedKopecks: 0 });
    expect(l.reserve(req('next', 1_400_000_00, '2026-04-01T10:00:00Z'))).toMatchObject({
      ok: true,
      headroomKopecks: 0,
    });
    // A later run of a paid reference (refused by the payout itself as already paid) adds nothing.
    l.settle('next', 'open');
    expect(l.reserve(req('paid', 1_000_000_00, '2026-05-01T10:00:00Z'))).toMatchObject({ ok: true });
    l.settle('paid', 'paid');
    expect(l.view().years[0]?.paidKopecks).toBe(1_000_000_00);
    l.settle('paid', 'returned');
    expect(l.view().years[0]).toMatchObject({ paidKopecks: 0 });
    expect(l.view().years[0]?.payouts.find((p) => p.reference === 'paid')?.state).toBe('returned');
  });

  it('starts a new year at Moscow midnight with all its headroom', () => {
    const l = new IncomeLedger();
    l.reserve(req('december', 2_400_000_00, '2026-12-31T20:59:00Z'));
    l.settle('december', 'paid');
    expect(l.reserve(req('too-late', 1_00, '2026-12-31T20:59:59Z'))).toMatchObject({
      ok: false,
      headroomKopecks: 0,
      year: 2026,
    });
    expect(l.reserve(req('january', 2_400_000_00, '2026-12-31T21:00:00Z'))).toEqual({
      ok: true,
      year: 2027,
      headroomKopecks: 0,
    });
  });

  it('applies known income, a per-payout and a monthly limit; plain rows count only against the last two', () => {
    const l = new IncomeLedger();
    const limits = {
      yearlyCapKopecks: CAP,
      knownIncomeKopecks: 2_000_000_00,
      perPayoutKopecks: 300_000_00,
      perMonthKopecks: 500_000_00,
    };
    expect(l.reserve(req('big', 350_000_00, '2026-02-01T10:00:00Z', { limits }))).toMatchObject({
      ok: false,
      limit: 'per_payout',
    });
    expect(l.reserve(req('one', 300_000_00, '2026-02-01T10:00:00Z', { limits }))).toMatchObject({
      ok: true,
      headroomKopecks: 100_000_00,
    });
    expect(l.reserve(req('two', 200_000_00, '2026-02-02T10:00:00Z', { limits }))).toMatchObject({
      ok: false,
      limit: 'yearly_cap',
      headroomKopecks: 100_000_00,
    });
    const plain = { limits: { perMonthKopecks: 500_000_00 }, selfEmployed: false };
    expect(l.reserve(req('plain', 200_000_00, '2026-02-03T10:00:00Z', plain))).toMatchObject({ ok: true });
    expect(l.reserve(req('plain2', 1_00, '2026-02-03T10:00:00Z', plain))).toMatchObject({
      ok: false,
      limit: 'per_month',
      headroomKopecks: 0,
    });
    expect(l.reserve(req('march', 200_000_00, '2026-03-01T10:00:00Z', plain))).toMatchObject({ ok: true });
  });

  it('tells the headroom as a reservation would be judged: income, what is held, known income, the month', () => {
    const l = new IncomeLedger();
    const limits = { yearlyCapKopecks: 5_000_00, knownIncomeKopecks: 1_000_00, perMonthKopecks: 3_000_00 };
    const june = '2026-06-10T10:00:00Z';
    expect(l.headroom({ limits, at: june })).toEqual({
      year: 2026,
      capLeftKopecks: 4_000_00,
      monthLeftKopecks: 3_000_00,
    });
    l.reserve(req('paid', 1_000_00, '2026-05-31T10:00:00Z', { limits }));
    l.settle('paid', 'paid');
    l.reserve(req('held', 500_00, june, { limits }));
    l.reserve(req('plain', 700_00, june, { limits, selfEmployed: false }));
    // The cap counts self-employed income and holds; the month counts every row of June.
    expect(l.headroom({ limits, at: june })).toEqual({
      year: 2026,
      capLeftKopecks: 2_500_00,
      monthLeftKopecks: 1_800_00,
    });
    // 00:00 on 1 January in Moscow: a new year, whole again (less the known income the limits give).
    expect(l.headroom({ limits, at: '2026-12-31T21:00:00Z' })).toEqual({
      year: 2027,
      capLeftKopecks: 4_000_00,
      monthLeftKopecks: 3_000_00,
    });
    expect(l.headroom({ limits: {}, at: june })).toEqual({ year: 2026 });
  });

  it('restores a previous run’s reservation without judging it, once, and never over a counted one', () => {
    const l = new IncomeLedger();
    l.reserve(req('paid', 2_000_000_00, '2026-06-01T10:00:00Z'));
    l.settle('paid', 'paid');
    // Restored as it was accepted, even past the cap: the payout's record says what became of it.
    l.restore(req('held', 1_000_000_00, '2026-06-02T10:00:00Z'));
    l.restore(req('held', 1_000_000_00, '2026-06-02T10:00:00Z'));
    l.restore(req('paid', 2_000_000_00, '2026-06-01T10:00:00Z'));
    expect(l.open().map((r) => r.reference)).toEqual(['held']);
    l.settle('held', 'not_paid');
    expect(l.view().years).toEqual([
      expect.objectContaining({ year: 2026, paidKopecks: 2_000_000_00, reservedKopecks: 0 }),
    ]);
  });

  it("knows a payout run's own reservation, and replaces another run's, holding the larger amount", () => {
    const l = new IncomeLedger();
    const run = (id: string) => `0000000${id}-0000-4000-8000-000000000000`;
    const at = '2026-06-01T10:00:00Z';
    // Held before runs were recorded (a reservation of 1 kopeck someone sent by hand, say).
    l.reserve(req('a', 1, at));
    expect(l.heldFor({ ...req('a', 1, at), runId: run('1') })).toBeUndefined();
    // The payout's own run, proven: the forged kopeck is not its reservation and does not stand in for it.
    expect(l.reserve(req('a', 900_000_00, at, { runId: run('1') }))).toMatchObject({ ok: true, at });
    expect(l.open()).toEqual([
      expect.objectContaining({ reference: 'a', runId: run('1'), amount: 900_000_00 }),
    ]);
    expect(l.heldFor(req('a', 900_000_00, at, { runId: run('1') }))).toBeDefined();
    expect(l.heldFor(req('a', 1, at, { runId: run('1') }))).toBeUndefined();
    // A later run of the reference for less: the earlier run may have paid its 900 000,00.
    expect(l.reserve(req('a', 100_00, at, { runId: run('2') }))).toMatchObject({ ok: true });
    expect(l.open()).toEqual([expect.objectContaining({ runId: run('2'), amount: 900_000_00 })]);
    // Judged against the cap as itself, not on top of the reservation it replaces.
    expect(l.reserve(req('b', 1_500_000_00, at, { runId: run('3') }))).toMatchObject({ ok: true });
    expect(l.reserve(req('b', 1_500_000_01, at, { runId: run('4') }))).toMatchObject({
      ok: false,
      limit: 'yearly_cap',
    });
    expect(l.open().find((r) => r.reference === 'b')).toMatchObject({ runId: run('3') });
    expect(l.view().years[0]?.reservedKopecks).toBe(2_400_000_00);
  });

  it('keeps refused reservations to show, the newest few, and never counts them', () => {
    const l = new IncomeLedger();
    for (let i = 0; i < REFUSED_KEPT + 5; i++)
      l.refuse({
        reference: `r${i}`,
        workflowId: `payout-r${i}`,
        amount: 1,
        at: '2026-06-01T10:00:00Z',
        why: 'no_such_run',
        reason: 'payout-r has no run',
      });
    const view = l.view();
    expect(view.refused).toHaveLength(REFUSED_KEPT);
    expect(view.refused?.at(-1)?.reference).toBe(`r${REFUSED_KEPT + 4}`);
    expect(view.years).toEqual([]);
    expect(view.openReservations).toBe(0);
    expect(l.headroom({ limits: { yearlyCapKopecks: CAP }, at: '2026-06-01T10:00:00Z' }).capLeftKopecks).toBe(
      CAP,
    );
    // Carried over continue-as-new with the rest of the state.
    expect(new IncomeLedger(JSON.parse(JSON.stringify(l.state))).view().refused).toEqual(view.refused);
  });

  it('says how far what is paid and held passes a cap lowered after the reservations were made', () => {
    const l = new IncomeLedger();
    expect(l.reserve(req('a', 2_000_000_00, '2026-06-01T10:00:00Z'))).toMatchObject({ ok: true });
    const at = '2026-07-01T10:00:00Z';
    expect(l.headroom({ limits: { yearlyCapKopecks: CAP }, at })).toEqual({
      year: 2026,
      capLeftKopecks: 400_000_00,
    });
    expect(l.headroom({ limits: { yearlyCapKopecks: 1_500_000_00 }, at })).toEqual({
      year: 2026,
      capLeftKopecks: 0,
      capOverKopecks: 500_000_00,
    });
    // Income from elsewhere, learnt later, counts the same way.
    expect(l.headroom({ limits: { yearlyCapKopecks: CAP, knownIncomeKopecks: 500_000_00 }, at })).toEqual({
      year: 2026,
      capLeftKopecks: 0,
      capOverKopecks: 100_000_00,
    });
  });
});
