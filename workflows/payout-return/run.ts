import { ApplicationFailure, condition } from '@temporalio/workflow';
import {
  parseReturnEvidence,
  returnShortfall,
  RETURN_UNPROVEN_TYPE,
  type PayoutReturnInput,
  type PayoutReturnStatus,
  type ProvenReturn,
  type ReturnEvidence,
} from './contract';
import { findReturnedPayout, markPayoutReturned, markReceiptToAnnul, takeBackIncome } from './activities';
import { verifyReturnEvidence } from './activities';

/** How long a run waits for evidence that holds before it fails (and may be started again). */
const EVIDENCE_WAIT_MS = 10 * 60_000;
/** Distinct pieces of evidence one run checks; a real return has one or two. */
const EVIDENCE_CHECKED = 12;
/** Refusals kept: enough to see an attempt, bounded against a flood of forged signals. */
const REFUSED_KEPT = 20;

const iso = () => new Date().toISOString(); // workflow time: deterministic on replay

/**
 * One return of one bank session. Its whole state is `status`; `pending` holds evidence not yet
 * checked. Nothing is marked before the bank's word holds: a signal is anyone's to send.
 */
export class PayoutReturnRun {
  readonly status: PayoutReturnStatus;
  private readonly pending: ReturnEvidence[] = [];
  /** Evidence already taken in this run, by what identifies it. */
  private readonly checked = new Set<string>();

  constructor(input: PayoutReturnInput) {
    this.status = {
      sessionId: input.sessionId,
      state: 'verifying',
      proven: [],
      refused: [],
      timestamps: { started: iso() },
    };
  }

  onEvidence(raw: unknown): void {
    const parsed = parseReturnEvidence(raw);
    if (!parsed.ok) return void this.refuse(`malformed evidence: ${parsed.message}`);
    const e = parsed.value;
    const key =
      e.source === 'webhook' ? `webhook:${e.eventId}` : `statement:${e.account}:${e.day}:${e.bankSystemId}`;
    if (this.checked.has(key)) return; // the same evidence again (a resent webhook, a second reconciliation)
    // Each piece costs a check, a statement one a bank call: a flood of forged signals is not checked on.
    if (this.checked.size >= EVIDENCE_CHECKED)
      return void this.refuse(`${e.source}: more evidence than is checked`);
    this.checked.add(key);
    this.pending.push(e);
  }

  async run(): Promise<PayoutReturnStatus> {
    const { status } = this;
    const first = await this.firstProof();
    status.proven.push(first);
    status.state = 'verified';
    status.timestamps.verified = iso();
    const payout = await findReturnedPayout({ sessionId: status.sessionId });
    status.payout = payout;
    const short = returnShortfall(first, payout);
    if (short > 0)
      throw this.unproven(`the bank returned ${payout.amount - short} of ${payout.amount} kopecks`);
    const report = await markPayoutReturned({ sessionId: status.sessionId, payout, proven: first });
    const receipt = payout.selfEmployed
      ? await markReceiptToAnnul({ sessionId: status.sessionId, payout, proven: first })
      : undefined;
    const ledger = await takeBackIncome({ sessionId: status.sessionId, reference: payout.reference });
    status.applied = {
      ...(report ? { report } : {}),
      ledger,
      ...(receipt ? { receipt } : {}),
    };
    status.state = 'returned';
    status.timestamps.returned = iso();
    // A second source that came meanwhile (both the webhook and the statement) is recorded, not applied.
    while (this.pending.length > 0) await this.check(this.pending.shift()!);
    return status;
  }

  /**
   * The first evidence that holds. Refused evidence with nothing else waiting ends the run at once
   * (failed, so real evidence may start the id again); a run started with no evidence waits a while.
   */
  private async firstProof(): Promise<ProvenReturn> {
    if (!(await condition(() => this.pending.length > 0, EVIDENCE_WAIT_MS))) throw this.unproven();
    while (this.pending.length > 0) {
      const proven = await this.check(this.pending.shift()!);
      if (proven) return proven;
    }
    throw this.unproven();
  }

  private unproven(why = 'no evidence of the bank held'): ApplicationFailure {
    return ApplicationFailure.create({
      type: RETURN_UNPROVEN_TYPE,
      message: `${why} for session ${this.status.sessionId}: nothing was marked`,
      nonRetryable: true,
      details: [this.status],
    });
  }

  private async check(evidence: ReturnEvidence): Promise<ProvenReturn | undefined> {
    const verified = await verifyReturnEvidence({ sessionId: this.status.sessionId, evidence });
    if (!verified.ok) return this.refuse(`${evidence.source}: ${verified.why}`);
    if (this.status.state !== 'verifying') this.status.proven.push(verified.proven);
    return verified.proven;
  }

  private refuse(why: string): undefined {
    this.status.refused = [...this.status.refused, why].slice(-REFUSED_KEPT);
    return undefined;
  }
}
