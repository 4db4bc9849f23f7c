import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createRecipientActivities } from '../activities/recipient';
import { BATCH_STORE } from './activity-options';
import {
  headroomQuery,
  recipientQuery,
  refreshRecipientUpdate,
  requestLinkUpdate,
  reserveIncomeUpdate,
  type RequestLinkAnswer,
  type RequestLinkInput,
  type ReserveRequest,
} from './contracts/recipient';
import { IncomeLedger, linkStillOpen, type LedgerState } from './recipient-ledger';
import { parseRequestLink, parseReserveRequest } from './recipient-validation';
import { iso, workflowNow } from './time';

type Acts = ReturnType<typeof createRecipientActivities>;
const { payoutOutcomes } = proxyActivities<Acts>(BATCH_STORE);
/** A person asking waits for the answer: a few minutes of attempts, then the error (nothing is recorded). */
const { requestSelfEmployedLink } = proxyActivities<Acts>({
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '3 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

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
  // someone's making (an empty year, say) would let payouts past the cap, so it starts from nothing.
  const carried = workflowInfo().continuedFromExecutionRunId !== undefined ? input?.state : undefined;
  const ledger = new IncomeLedger(carried && typeof carried === 'object' ? carried : undefined);
  let settling: Promise<void> | undefined;
  /** Reads the outcome of every open reservation's payout, one look-up at a time for the whole ledger. */
  const settle = () =>
    (settling ??= (async () => {
      try {
        const open = ledger.open();
        if (open.length === 0) return;
        const outcomes = await payoutOutcomes({ workflowIds: open.map((r) => r.workflowId) });
        open.forEach((r, i) => ledger.settle(r.reference, outcomes[i] ?? 'open'));
      } finally {
        settling = undefined;
      }
    })());

  setHandler(recipientQuery, () => ledger.view());
  setHandler(headroomQuery, (ask) => {
    if (typeof ask?.at !== 'string' || typeof ask.limits !== 'object' || ask.limits === null)
      throw new Error('expected {limits, at}');
    return ledger.headroom(ask);
  });
  setHandler(
    reserveIncomeUpdate,
    async (req: ReserveRequest) => {
      const first = ledger.reserve(req);
      if (first.ok || ledger.open().every((r) => r.reference === req.reference)) return first;
      // Refused while other payouts hold reservations: some may have ended since. Look, then judge again.
      await settle();
      return ledger.reserve(req);
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
        const last = ledger.state.link;
        if (last && !req.again && linkStillOpen(last, workflowNow())) return { sent: false, link: last };
        const attempt = (ledger.state.linkRequests ?? 0) + 1;
        const answer = await requestSelfEmployedLink({
          taxReference: req.taxReference,
          ...(req.returnUrl ? { returnUrl: req.returnUrl } : {}),
          attempt,
        }).catch((err: unknown) => {
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
    await settle();
    return ledger.view();
  });

  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000);
  await condition(allHandlersFinished);
  await continueAsNew<typeof recipientWorkflow>({ state: ledger.state });
}
