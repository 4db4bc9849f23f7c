import type {
  HeadroomAsk,
  LedgerState,
  Reservation,
  YearRecord,
  LedgerHeadroom,
  LimitKind,
  LinkRequestView,
  RecipientView,
  RecipientYearView,
  RefusedReservation,
  ReservationToJudge,
  ReserveAnswer,
  ReserveRequest,
} from './contract';
import { REFUSED_KEPT, type PayoutOutcome } from './contract';

// What payrun paid and holds for one person, by Moscow calendar year: pure, so the recipient workflow,
// its continue-as-new and the tests share one set of rules.

/** Moscow has kept UTC+3 all year since 2014. */
const MOSCOW_OFFSET_MS = 3 * 3_600_000;
/** The newest payouts kept per year for the ledger's view. */
const RECENT_KEPT = 20;

export function moscowYearMonth(iso: string): { year: number; month: string } {
  const d = new Date(Date.parse(iso) + MOSCOW_OFFSET_MS);
  const year = d.getUTCFullYear();
  return { year, month: `${year}-${String(d.getUTCMonth() + 1).padStart(2, '0')}` };
}

/** A link request the bank sent without an expiry is taken as open for a day (payrun's choice, D22). */
const LINK_ASSUMED_OPEN_MS = 24 * 3_600_000;

/** Whether a link request may still be answered by the person: before its expiry. */
export function linkStillOpen(link: LinkRequestView, nowMs: number): boolean {
  const until = link.expiresAt ? Date.parse(link.expiresAt) : Date.parse(link.sentAt) + LINK_ASSUMED_OPEN_MS;
  return nowMs < until;
}

export class IncomeLedger {
  readonly state: LedgerState;

  constructor(state?: LedgerState) {
    this.state = state ?? { years: {}, reservations: {} };
  }

  private year(y: number): YearRecord {
    return (this.state.years[y] ??= { capIncome: 0, income: 0, byMonth: {}, paid: {} });
  }

  private held(year: number, filter: (r: Reservation) => boolean, except?: string): number {
    return Object.values(this.state.reservations)
      .filter((r) => r.year === year && r.reference !== except && filter(r))
      .reduce((sum, r) => sum + r.amount, 0);
  }

  /**
   * The reservation this payout run already holds, if it does: asking again (a retried activity, a
   * restarted worker) needs no new proof. One from another run, or from before runs were recorded, does not
   * count: it is proven again and replaced.
   */
  heldFor(req: ReserveRequest): Reservation | undefined {
    const r = this.state.reservations[req.reference];
    return r &&
      req.runId !== undefined &&
      r.runId === req.runId &&
      r.workflowId === req.workflowId &&
      r.amount === req.amount
      ? r
      : undefined;
  }

  /**
   * The reservation, or the limit it would pass. A request without a run (recorded before reservations
   * were proven) finds any reservation of its reference, as it did then. A proven request finds only its own
   * run's: another run's (which has closed, since one run of a workflow id runs at a time) or an unproven
   * one is replaced, holding the larger amount, since that run may have paid its amount and this one then
   * pays nothing.
   */
  reserve(asked: ReservationToJudge): ReserveAnswer {
    const { year, month } = moscowYearMonth(asked.at);
    const existing = this.state.reservations[asked.reference];
    const record = this.year(year);
    const { limits } = asked;
    const stale = existing && asked.runId !== undefined && !this.heldFor(asked) ? existing : undefined;
    const req = stale ? { ...asked, amount: Math.max(stale.amount, asked.amount) } : asked;
    const refuse = (limit: LimitKind, limitKopecks: number, used: number): ReserveAnswer => ({
      ok: false,
      limit,
      limitKopecks,
      headroomKopecks: Math.max(0, limitKopecks - used),
      year,
    });
    const capUsed = () =>
      (limits.knownIncomeKopecks ?? 0) +
      record.capIncome +
      this.held(year, (r) => r.selfEmployed, req.reference);
    const paidBefore = record.paid[req.reference];
    const countedPaid = paidBefore !== undefined && !paidBefore.returned;
    const headroom = () =>
      req.selfEmployed && limits.yearlyCapKopecks !== undefined
        ? {
            headroomKopecks: Math.max(
              0,
              // capUsed leaves this reference out: it is subtracted here unless already counted as paid.
              limits.yearlyCapKopecks - capUsed() - (countedPaid ? 0 : req.amount),
            ),
          }
        : {};
    // A proven reservation's answer says when it counts: a rebuilt ledger restores it with that date.
    const dated = asked.runId !== undefined ? { at: asked.at } : {};
    if ((existing && !stale) || record.paid[req.reference])
      return { ok: true, year, ...headroom(), ...dated };
    if (limits.perPayoutKopecks !== undefined && req.amount > limits.perPayoutKopecks)
      return refuse('per_payout', limits.perPayoutKopecks, 0);
    if (limits.perMonthKopecks !== undefined) {
      const used = (record.byMonth[month] ?? 0) + this.held(year, (r) => r.month === month, req.reference);
      if (used + req.amount > limits.perMonthKopecks)
        return refuse('per_month', limits.perMonthKopecks, used);
    }
    if (
      req.selfEmployed &&
      limits.yearlyCapKopecks !== undefined &&
      capUsed() + req.amount > limits.yearlyCapKopecks
    )
      return refuse('yearly_cap', limits.yearlyCapKopecks, capUsed());
    const answer: ReserveAnswer = { ok: true, year, ...headroom(), ...dated };
    this.hold(req);
    return answer;
  }

  private hold(req: ReservationToJudge): void {
    const { year, month } = moscowYearMonth(req.at);
    this.state.reservations[req.reference] = {
      reference: req.reference,
      workflowId: req.workflowId,
      ...(req.runId !== undefined ? { runId: req.runId } : {}),
      amount: req.amount,
      selfEmployed: req.selfEmployed,
      year,
      month,
      at: req.at,
    };
  }

  /** What is left under the cap and the monthly limit, counted as `reserve` counts them. Changes nothing. */
  headroom({ limits, at }: HeadroomAsk): LedgerHeadroom {
    const { year, month } = moscowYearMonth(at);
    const record = this.state.years[year];
    const capUsed =
      (limits.knownIncomeKopecks ?? 0) + (record?.capIncome ?? 0) + this.held(year, (r) => r.selfEmployed);
    const monthUsed = (record?.byMonth[month] ?? 0) + this.held(year, (r) => r.month === month);
    return {
      year,
      ...(limits.yearlyCapKopecks !== undefined
        ? { capLeftKopecks: Math.max(0, limits.yearlyCapKopecks - capUsed) }
        : {}),
      ...(limits.yearlyCapKopecks !== undefined && capUsed > limits.yearlyCapKopecks
        ? { capOverKopecks: capUsed - limits.yearlyCapKopecks }
        : {}),
      ...(limits.perMonthKopecks !== undefined
        ? { monthLeftKopecks: Math.max(0, limits.perMonthKopecks - monthUsed) }
        : {}),
    };
  }

  /**
   * Puts back a reservation a previous run of this ledger accepted (the ledger was terminated by hand and
   * is rebuilt from its records): held without judging it again, unless its reference is already held or
   * counted. Settling then reads from its payout what became of it.
   */
  restore(req: ReservationToJudge): void {
    if (this.state.reservations[req.reference]) return;
    if (Object.values(this.state.years).some((y) => y.paid[req.reference])) return;
    this.hold(req);
  }

  /** Keeps a reservation not proven to come from a payout where people see it; it counts nowhere. */
  refuse(entry: RefusedReservation): void {
    this.state.refused = [...(this.state.refused ?? []), entry].slice(-REFUSED_KEPT);
  }

  /** Whether the reference's income was already taken back. */
  isReturned(reference: string): boolean {
    return Object.values(this.state.years).some((y) => y.paid[reference]?.returned === true);
  }

  open(): Reservation[] {
    return Object.values(this.state.reservations);
  }

  /**
   * What became of a reserved payout: paid turns the reservation into the year's income (once per
   * reference), not paid releases it, returned takes the income back; open leaves it held.
   */
  settle(reference: string, outcome: PayoutOutcome): void {
    const r = this.state.reservations[reference];
    if (outcome === 'open') return;
    if (r) delete this.state.reservations[reference];
    for (const [y, record] of Object.entries(this.state.years)) {
      const paid = record.paid[reference];
      if (paid && outcome === 'returned' && !paid.returned) {
        paid.returned = true;
        this.add(Number(y), paid.month, paid.selfEmployed, -paid.amount);
        return;
      }
      if (paid) return; // counted once
    }
    if (!r || outcome === 'not_paid') return;
    const record = this.year(r.year);
    record.paid[reference] = { amount: r.amount, selfEmployed: r.selfEmployed, month: r.month, at: r.at };
    this.add(r.year, r.month, r.selfEmployed, r.amount);
    if (outcome === 'returned') this.settle(reference, 'returned');
  }

  private add(year: number, month: string, selfEmployed: boolean, amount: number) {
    const record = this.year(year);
    record.income += amount;
    if (selfEmployed) record.capIncome += amount;
    record.byMonth[month] = (record.byMonth[month] ?? 0) + amount;
  }

  view(): RecipientView {
    const years = new Set([...Object.keys(this.state.years).map(Number), ...this.open().map((r) => r.year)]);
    return {
      years: [...years].sort().map((year): RecipientYearView => {
        const record = this.state.years[year];
        const paid = Object.entries(record?.paid ?? {}).map(([reference, p]) => ({
          reference,
          amount: p.amount,
          at: p.at,
          state: p.returned ? ('returned' as const) : ('paid' as const),
        }));
        const held = this.open()
          .filter((r) => r.year === year)
          .map((r) => ({ reference: r.reference, amount: r.amount, at: r.at, state: 'reserved' as const }));
        return {
          year,
          paidKopecks: record?.income ?? 0,
          reservedKopecks: held.reduce((s, r) => s + r.amount, 0),
          payouts: [...paid, ...held].sort((a, b) => (a.at < b.at ? -1 : 1)).slice(-RECENT_KEPT),
        };
      }),
      openReservations: this.open().length,
      ...(this.state.refused?.length ? { refused: this.state.refused } : {}),
      ...(this.state.link ? { link: this.state.link } : {}),
    };
  }
}
