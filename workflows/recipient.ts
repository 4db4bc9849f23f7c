import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createRecipientActivities } from '../activities/recipient';
import { LEDGER_PROOF, LEDGER_PROOF_TASK, LEDGER_READS, SELF_EMPLOYED_LINK } from './shared/activity-options';
import {
  headroomQuery,
  recipientQuery,
  refreshRecipientUpdate,
  requestLinkUpdate,
  reserveIncomeUpdate,
  type PayoutProof,
  type RequestLinkAnswer,
  type RequestLinkInput,
  type ReservationToJudge,
  type ReserveAnswer,
  type ReserveRequest,
} from './contracts/recipient';
import { ProofQueue } from './ledger-proofs';
import { IncomeLedger, linkStillOpen, type LedgerState } from './recipient-ledger';
import { parseRequestLink, parseReserveRequest } from './recipient-validation';
import { iso, workflowNow } from './shared/time';

type Acts = ReturnType<typeof createRecipientActivities>;
const { payoutOutcomes, previousLedger } = proxyActivities<Acts>(LEDGER_READS);
/** A person asking waits for the answer: a few minutes of attempts, then the error. */
const { requestSelfEmployedLink } = proxyActivities<Acts>(SELF_EMPLOYED_LINK);
const { provePayouts } = proxyLocalActivities<Acts>(LEDGER_PROOF);
const { provePayouts: provePayoutsTask } = proxyActivities<Acts>(LEDGER_PROOF_TASK);

/**
 * Reservations proven against the payout's run before they count (recorded before it, a reservation was
 * judged with the sender's date and limits, and replays so).
 */
export const RESERVATIONS_PROVEN = 'ledger-reservations-proven';

export interface RecipientWorkflowInput {
  /** Carried over continue-as-new. */
  state?: LedgerState;
}

/**
 * One person's income from payrun, by Moscow calendar year: every payout reserves its amount here before
 * its bank session exists (an Update, one workflow task), so two batches paying the same person at once
 * are judged one after the other against the same figures. The ledger learns what became of a payout from
 * the payout's own record (an activity) only when it matters: a reservation that would be refused, or a
 * person asking for the figures (`refresh`). Payouts never report back, and an idle ledger costs nothing:
 * a paid payout still held as reserved counts against the limits exactly as its income would.
 */
export async function recipientWorkflow(input: RecipientWorkflowInput = {}): Promise<void> {
  // Only the ledger itself carries state over continue-as-new: a run started by hand with a `state` of
  // someone's making (an empty year, say) would let payouts past the cap, so it is never taken.
  const continued = workflowInfo().continuedFromExecutionRunId !== undefined;
  const carried = continued ? input?.state : undefined;
  let ledger = new IncomeLedger(carried && typeof carried === 'object' ? carried : undefined);
  let settling: Promise<void> | undefined;
  /**
   * Reads the outcome of every open reservation's payout, one look-up at a time for the whole ledger.
   * (With nothing open it returns at once and keeps nothing: a look-up that finished without awaiting
   * would otherwise stay behind as `settling`, and every later call would return it without looking.)
   */
  const settle = (): Promise<void> => {
    if (settling) return settling;
    const open = ledger.open();
    if (open.length === 0) return Promise.resolve();
    settling = (async () => {
      try {
        const outcomes = await payoutOutcomes({ workflowIds: open.map((r) => r.workflowId) });
        open.forEach((r, i) => ledger.settle(r.reference, outcomes[i] ?? 'open'));
      } finally {
        settling = undefined;
      }
    })();
    return settling;
  };

  // A run not continued from its predecessor (the first, or one after someone terminated the ledger) first
  // rebuilds what the previous run held from the server's record of it, then settles it from the payouts'
  // own records: a terminated ledger does not forget the year's income. Reservations wait for it.
  // (Ledgers started before this existed replay without it.)
  const ready: Promise<void> =
    !continued && patched('ledger-rebuilt-from-previous-run')
      ? (async () => {
          const before = await previousLedger();
          if (before.state && typeof before.state === 'object')
            ledger = new IncomeLedger(before.state as LedgerState);
          for (const r of before.reservations) ledger.restore({ ...r, limits: {} });
          for (const r of before.refused ?? []) ledger.refuse(r);
          await settle();
        })()
      : Promise.resolve();

  setHandler(recipientQuery, () => ledger.view());
  setHandler(headroomQuery, (ask) => {
    if (typeof ask?.at !== 'string' || typeof ask.limits !== 'object' || ask.limits === null)
      throw new Error('expected {limits, at}');
    return ledger.headroom(ask);
  });
  const judge = async (req: ReservationToJudge): Promise<ReserveAnswer> => {
    const first = ledger.reserve(req);
    if (first.ok || ledger.open().every((r) => r.reference === req.reference)) return first;
    // Refused while other payouts hold reservations: some may have ended since. Look, then judge again.
    await settle();
    return ledger.reserve(req);
  };
  /**
   * Anyone with Temporal's Update rights can send a reservation: only the run it names, as the server
   * holds it, says whether it is that payout's and what it counts as. The sender's date and limits are
   * never taken. A payout asking again for the reservation it holds needs no second proof.
   */
  // Ledgers recorded with the local activity replay with it; every new one proves in an ordinary activity.
  const proofs = new ProofQueue((asks) =>
    patched('ledger-proof-as-task') ? provePayoutsTask({ asks }) : provePayouts({ asks }),
  );
  const prove = async (req: ReserveRequest): Promise<PayoutProof> =>
    req.runId === undefined
      ? { ok: false, why: 'no_run', reason: 'the reservation names no payout run' }
      : proofs.proof({
          reference: req.reference,
          workflowId: req.workflowId,
          runId: req.runId,
          amount: req.amount,
          selfEmployed: req.selfEmployed,
        });
  setHandler(
    reserveIncomeUpdate,
    async (req: ReserveRequest): Promise<ReserveAnswer> => {
      await ready;
      if (!patched(RESERVATIONS_PROVEN)) return judge(req as ReservationToJudge);
      const held = ledger.heldFor(req);
      if (held) return { ok: true, year: held.year, at: held.at };
      const proof = await prove(req);
      if (!proof.ok) {
        const { reference, workflowId, runId, amount } = req;
        ledger.refuse({
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
      return judge({
        reference: req.reference,
        workflowId: req.workflowId,
        runId: req.runId,
        amount: req.amount,
        selfEmployed: proof.selfEmployed,
        at: proof.at,
        limits: proof.limits ?? {},
      });
    },
    {
      validator: (req) => {
        const r = parseReserveRequest(req);
        if (!r.ok) throw new Error(r.message);
      },
    },
  );

  let linking: Promise<RequestLinkAnswer> | undefined;
  /** One link request at a time: two people asking at once get the one request. */
  const requestLink = (req: RequestLinkInput) =>
    (linking ??= (async (): Promise<RequestLinkAnswer> => {
      try {
        await ready;
        const last = ledger.state.link;
        if (last && !req.again && linkStillOpen(last, workflowNow())) return { sent: false, link: last };
        const attempt = (ledger.state.linkRequests ?? 0) + 1;
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
            ledger.state.linkRequests = attempt;
          const why = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
          throw ApplicationFailure.nonRetryable(`the bank did not take the link request: ${why}`);
        });
        const link = { ...answer, sentAt: iso(), requestedBy: req.requestedBy };
        ledger.state.link = link;
        ledger.state.linkRequests = attempt;
        return { sent: true, link };
      } finally {
        linking = undefined;
      }
    })());
  setHandler(requestLinkUpdate, requestLink, {
    validator: (req) => {
      const r = parseRequestLink(req);
      if (!r.ok) throw new Error(r.message);
    },
  });

  setHandler(refreshRecipientUpdate, async () => {
    await ready;
    await settle();
    return ledger.view();
  });

  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000);
  await ready;
  await condition(allHandlersFinished);
  await continueAsNew<typeof recipientWorkflow>({ state: ledger.state });
}
