import { ApplicationFailure, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { invalidInput } from '../shared/parse';
import {
  headroomQuery,
  LEDGER_CONTINUING,
  parseRecipientInput,
  parseRequestLink,
  parseReserveRequest,
  parseReserveRequests,
  parseTakeBack,
  recipientQuery,
  refreshRecipientUpdate,
  requestLinkUpdate,
  reserveIncomeManyUpdate,
  reserveIncomeUpdate,
  takeBackIncomeUpdate,
  type RecipientWorkflowInput,
} from './contract';
import { RecipientLedgerRun } from './run';

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
  const parsed = parseRecipientInput(input);
  if (continued && !parsed.ok) throw invalidInput(parsed.message);
  const { state, continueAfterReservations } = parsed.ok ? parsed.value : {};
  const run = new RecipientLedgerRun(continued ? state : undefined, continueAfterReservations);
  run.rebuildUnlessContinued(continued);

  setHandler(recipientQuery, () => run.view());
  setHandler(headroomQuery, (ask) => run.headroom(ask));
  // Handing over: turned away unwritten, asked again by the payout's activity, taken by the next run.
  const refuseWhileHandingOver = () => {
    if (run.handingOver)
      throw ApplicationFailure.create({
        type: LEDGER_CONTINUING,
        message: 'the ledger is continuing as new: ask its next run',
      });
  };
  setHandler(reserveIncomeUpdate, (req) => run.reserve(req), {
    validator: (req) => {
      refuseWhileHandingOver();
      const r = parseReserveRequest(req);
      if (!r.ok) throw new Error(r.message);
    },
  });
  setHandler(reserveIncomeManyUpdate, (reqs) => run.reserveMany(reqs), {
    validator: (reqs) => {
      refuseWhileHandingOver();
      const r = parseReserveRequests(reqs);
      if (!r.ok) throw new Error(r.message);
    },
  });
  setHandler(requestLinkUpdate, (req) => run.requestLink(req), {
    validator: (req) => {
      const r = parseRequestLink(req);
      if (!r.ok) throw new Error(r.message);
    },
  });
  setHandler(refreshRecipientUpdate, () => run.refresh());
  setHandler(takeBackIncomeUpdate, (req) => run.takeBack(req), {
    validator: (req) => {
      const r = parseTakeBack(req);
      if (!r.ok) throw new Error(r.message);
    },
  });
  await continueAsNew<typeof recipientWorkflow>(await run.run());
}
