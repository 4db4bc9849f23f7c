import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  workflowInfo,
} from '@temporalio/workflow';
import { iso, workflowNow } from '../shared/time';
import {
  payoutOutcomes,
  previousLedger,
  proveReturn,
  provePayouts,
  provePayoutsTask,
  requestSelfEmployedLink,
} from './activities';
import type {
  HeadroomAsk,
  LedgerHeadroom,
  LedgerState,
  PayoutProof,
  ProvePayoutAsk,
  RecipientView,
  RequestLinkAnswer,
  RequestLinkInput,
  ReservationToJudge,
  ReserveAnswer,
  ReserveRequest,
  TakeBackAnswer,
  TakeBackIncome,
} from './contract';
import { IncomeLedger, linkStillOpen } from './ledger';
import { ProofQueue } from './proofs';

/**
 * Reservations proven against the payout's run before they count (recorded before it, a reservation was
 * judged with the sender's date and limits, and replays so).
 */
export const RESERVATIONS_PROVEN = 'ledger-reservations-proven';

/** What the proof activity is asked of a reservation that names its run. */
const askOf = (
  { reference, workflowId, amount, selfEmployed }: ReserveRequest,
  runId: string,
): ProvePayoutAsk => ({
  reference,
  workflowId,
  runId,
  amount,
  selfEmployed,
});

const NO_RUN: PayoutProof = { ok: false, why: 'no_run', reason: 'the reservation names no payout run' };

/**
 * One run of a person's ledger. Its whole state is the ledger's (`state`, a LedgerState), handed whole to
 * continue-as-new; the rest are this run's work in flight (the rebuild, a settling look-up, a link
 * request, the proofs' queue), none of which outlives the run.
 */
export class RecipientLedgerRun {
  private ledger: IncomeLedger;
  /** Reservations wait for the rebuild of a run not continued from its predecessor. */
  private ready: Promise<void> = Promise.resolve();
  private settling: Promise<void> | undefined;
  private linking: Promise<RequestLinkAnswer> | undefined;
  // Ledgers recorded with the local activity replay with it; every new one proves in an ordinary activity.
  private readonly proofs = new ProofQueue((asks) =>
    patched('ledger-proof-as-task') ? provePayoutsTask({ asks }) : provePayouts({ asks }),
  );

  /** Set once the run hands over: new reservations are turned away to the next run (workflow.ts). */
  handingOver = false;
  private reservedThisRun = 0;

  constructor(
    carried: LedgerState | undefined,
    private readonly continueAfterReservations?: number,
  ) {
    this.ledger = new IncomeLedger(carried);
  }

  get state(): LedgerState {
    return this.ledger.state;
  }

  /** What the next run starts from: the whole state. */
  carry(): { state: LedgerState; continueAfterReservations?: number } {
    const every = this.continueAfterReservations;
    return { state: this.ledger.state, ...(every !== undefined ? { continueAfterReservations: every } : {}) };
  }

  /**
   * A run not continued from its predecessor (the first, or one after someone terminated the ledger) first
   * rebuilds what the previous run held from the server's record of it, then settles it from the payouts'
   * own records: a terminated ledger does not forget the year's income. Reservations wait for it.
   * (Ledgers started before this existed replay without it.) Called before any handler is wired.
   */
  rebuildUnlessContinued(continued: boolean): void {
    if (continued || !patched('ledger-rebuilt-from-previous-run')) return;
    this.ready = (async () => {
      const before = await previousLedger();
      if (before.state && typeof before.state === 'object')
        this.ledger = new IncomeLedger(before.state as LedgerState);
      for (const r of before.reservations) this.ledger.restore({ ...r, limits: {} });
      for (const r of before.refused ?? []) this.ledger.refuse(r);
      await this.settle();
    })();
  }

  view(): RecipientView {
    return this.ledger.view();
  }

  headroom(ask: HeadroomAsk): LedgerHeadroom {
    if (typeof ask?.at !== 'string' || typeof ask.limits !== 'object' || ask.limits === null)
      throw new Error('expected {limits, at}');
    return this.ledger.headroom(ask);
  }

  /**
   * Anyone with Temporal's Update rights can send a reservation: only the run it names, as the server
   * holds it, says whether it is that payout's and what it counts as. The sender's date and limits are
   * never taken. A payout asking again for the reservation it holds needs no second proof.
   */
  async reserve(req: ReserveRequest): Promise<ReserveAnswer> {
    this.reservedThisRun++;
    await this.ready;
    if (!patched(RESERVATIONS_PROVEN)) return this.judge(req as ReservationToJudge);
    const held = this.ledger.heldFor(req);
    if (held) return { ok: true, year: held.year, at: held.at };
    return this.decide(req, await this.prove(req));
  }

  /**
   * Several payouts' reservations in one Update (reserveIncomeMany): the ones not yet held proven together
   * in one activity, then each judged in the order sent, as if each had come alone in that order.
   */
  async reserveMany(reqs: ReserveRequest[]): Promise<ReserveAnswer[]> {
    this.reservedThisRun += reqs.length;
    await this.ready;
    const toProve = reqs.filter((req) => !this.ledger.heldFor(req));
    const proven = await this.proveAll(toProve);
    const answers: ReserveAnswer[] = [];
    for (const req of reqs) {
      // Held before, or by the same run's request earlier in this Update: no second proof.
      const held = this.ledger.heldFor(req);
      if (held) answers.push({ ok: true, year: held.year, at: held.at });
      // (One held when the Update came and settled since by an earlier one's judging is proven now.)
      else answers.push(await this.decide(req, proven.get(req) ?? (await this.prove(req))));
    }
    return answers;
  }

  /** A reservation proven (or not) to come from the payout run it names: refused and kept, or judged. */
  private async decide(req: ReserveRequest, proof: PayoutProof): Promise<ReserveAnswer> {
    if (!proof.ok) {
      const { reference, workflowId, runId, amount } = req;
      this.ledger.refuse({
        reference,
        workflowId,
        ...(runId !== undefined ? { runId } : {}),
        amount,
        at: iso(),
        why: proof.why,
        reason: proof.reason,
      });
      return { ok: false, unproven: proof.why, reason: proof.reason };
    }
    return this.judge({
      reference: req.reference,
      workflowId: req.workflowId,
      runId: req.runId,
      amount: req.amount,
      selfEmployed: proof.selfEmployed,
      at: proof.at,
      limits: proof.limits ?? {},
    });
  }

  /** One link request at a time: two people asking at once get the one request. */
  requestLink(req: RequestLinkInput): Promise<RequestLinkAnswer> {
    return (this.linking ??= (async (): Promise<RequestLinkAnswer> => {
      try {
        await this.ready;
        const { state } = this.ledger;
        const last = state.link;
        if (last && !req.again && linkStillOpen(last, workflowNow())) return { sent: false, link: last };
        const attempt = (state.linkRequests ?? 0) + 1;
        const answer = await requestSelfEmployedLink({
          taxReference: req.taxReference,
          ...(req.returnUrl ? { returnUrl: req.returnUrl } : {}),
          attempt,
        }).catch((err: unknown) => {
          // A refusal spends its attempt: the bank keeps the answer under that idempotency key, so the
          // next request needs a new one. A request left unanswered keeps its key, so asking again
          // cannot make a second request at the bank.
          if (
            err instanceof ActivityFailure &&
            err.cause instanceof ApplicationFailure &&
            err.cause.nonRetryable
          )
            this.ledger.state.linkRequests = attempt;
          const why = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
          throw ApplicationFailure.nonRetryable(`the bank did not take the link request: ${why}`);
        });
        const link = { ...answer, sentAt: iso(), requestedBy: req.requestedBy };
        this.ledger.state.link = link;
        this.ledger.state.linkRequests = attempt;
        return { sent: true, link };
      } finally {
        this.linking = undefined;
      }
    })());
  }

  /** A returned payout's income leaves the year, once, after the return proves itself (docs/payouts.md). */
  async takeBack(req: TakeBackIncome): Promise<TakeBackAnswer> {
    await this.ready;
    if (this.ledger.isReturned(req.reference)) return { ok: true, already: true };
    const proof = await proveReturn(req);
    if (!proof.ok) return { ok: false, why: proof.why ?? 'the return is not proven' };
    if (this.ledger.isReturned(req.reference)) return { ok: true, already: true };
    this.ledger.settle(req.reference, 'returned');
    return { ok: true, already: false };
  }

  async refresh(): Promise<RecipientView> {
    await this.ready;
    await this.settle();
    return this.ledger.view();
  }

  /**
   * Runs until the server suggests continuing as new, then hands over once every handler has finished.
   * Reservations keep arriving from payouts in flight: were they taken while the run drains, the drain
   * might never end, and one accepted but unfinished when the run closed would fail. So from the moment it
   * decides, the validator turns new ones away (nothing written) and the payouts' activities ask again,
   * under their retry policy, until the next run takes them; the ones already taken finish here.
   */
  async run(): Promise<{ state: LedgerState; continueAfterReservations?: number }> {
    await condition(() => this.timeToContinue());
    this.handingOver = true;
    await this.ready;
    await condition(allHandlersFinished);
    return this.carry();
  }

  private timeToContinue(): boolean {
    const info = workflowInfo();
    const every = this.continueAfterReservations;
    return (
      info.continueAsNewSuggested ||
      info.historyLength > 5_000 ||
      (every !== undefined && this.reservedThisRun >= every)
    );
  }

  private async judge(req: ReservationToJudge): Promise<ReserveAnswer> {
    const first = this.ledger.reserve(req);
    if (first.ok || this.ledger.open().every((r) => r.reference === req.reference)) return first;
    // Refused while other payouts hold reservations: some may have ended since. Look, then judge again.
    await this.settle();
    return this.ledger.reserve(req);
  }

  private async prove(req: ReserveRequest): Promise<PayoutProof> {
    return req.runId === undefined ? NO_RUN : this.proofs.proof(askOf(req, req.runId));
  }

  /** Each request's proof, the ones that name a run asked in one turn of the proof queue. */
  private async proveAll(reqs: ReserveRequest[]): Promise<Map<ReserveRequest, PayoutProof>> {
    const asks: ProvePayoutAsk[] = [];
    for (const req of reqs) if (req.runId !== undefined) asks.push(askOf(req, req.runId));
    const proofs = asks.length > 0 ? await this.proofs.proofAll(asks) : [];
    let next = 0;
    return new Map(reqs.map((req) => [req, req.runId === undefined ? NO_RUN : proofs[next++]!]));
  }

  /**
   * Reads the outcome of every open reservation's payout, one look-up at a time for the whole ledger.
   * (With nothing open it returns at once and keeps nothing: a look-up that finished without awaiting
   * would otherwise stay behind as `settling`, and every later call would return it without looking.)
   */
  private settle(): Promise<void> {
    if (this.settling) return this.settling;
    const open = this.ledger.open();
    if (open.length === 0) return Promise.resolve();
    this.settling = (async () => {
      try {
        const outcomes = await payoutOutcomes({ workflowIds: open.map((r) => r.workflowId) });
        open.forEach((r, i) => this.ledger.settle(r.reference, outcomes[i] ?? 'open'));
      } finally {
        this.settling = undefined;
      }
    })();
    return this.settling;
  }
}
