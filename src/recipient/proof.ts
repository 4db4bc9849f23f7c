import { payOnWakeMs, type PayoutRequest } from '../domain';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import type { ProvePayoutAsk, UnprovenWhy } from '../../workflows/recipient-ledger/contract';
import { parsePayoutInput } from '../../workflows/payout/contract';

// Whether a reservation comes from the payout it names, judged from what the Temporal server holds of that
// run (its description and its first event), never from what the sender says. Pure: the activity
// (activities/recipient.ts provePayouts) reads the facts, this judges them.

/** The payout workflow's type name, as the worker registers it (workflows/payout/workflow.ts). */
export const PAYOUT_WORKFLOW_TYPE = 'payoutWorkflow';

/** What the server holds of the named run. */
export interface PayoutRunFacts {
  /** The run's status as describe names it: RUNNING, COMPLETED, TERMINATED… */
  status: string;
  workflowType: string;
  taskQueue: string;
  /** The run's first input (its WorkflowExecutionStarted event), decoded with the worker's keys. */
  input: unknown;
}

export interface ProofContext {
  /** The queue payrun's payouts run on: a run on another queue is no payout of this worker's. */
  taskQueue: string;
  /** The ledger asking, and the ledger a tax number's payouts reserve in. */
  ledgerId: string;
  ledgerOf: (taxReference: string) => string;
}

export type PayoutRunJudgement =
  { ok: true; request: PayoutRequest } | { ok: false; why: UnprovenWhy; reason: string };

/**
 * The reservation is the running payout's own when the run it names is running, is a payout workflow on
 * payrun's queue whose input pays this reference, this amount, this ledger's person, self-employed as asked.
 * `run` undefined: the server knows no such run. Reasons name no person (they are kept in history).
 */
export function judgePayoutRun(
  ask: ProvePayoutAsk,
  run: PayoutRunFacts | undefined,
  ctx: ProofContext,
): PayoutRunJudgement {
  const no = (why: UnprovenWhy, reason: string): PayoutRunJudgement => ({ ok: false, why, reason });
  if (ask.workflowId !== payoutWorkflowId(ask.reference))
    return no('not_its_workflow', `${ask.workflowId} is not the payout workflow of ${ask.reference}`);
  if (!run) return no('no_such_run', `${ask.workflowId} has no run ${ask.runId}`);
  if (run.status !== 'RUNNING')
    return no('run_closed', `run ${ask.runId} of ${ask.workflowId} is ${run.status.toLowerCase()}`);
  if (run.workflowType !== PAYOUT_WORKFLOW_TYPE || run.taskQueue !== ctx.taskQueue)
    return no(
      'not_a_payout',
      `run ${ask.runId} is a ${run.workflowType} on queue ${run.taskQueue}, not a payout on ${ctx.taskQueue}`,
    );
  const parsed = parsePayoutInput(run.input);
  if (!parsed.ok) return no('unreadable_input', `the run's input is not a payout's (${parsed.message})`);
  const { request, options } = parsed.value;
  if (options?.reconcileOnly) return no('not_a_payout', 'the run only reconciles: it pays nothing');
  if (request.reference !== ask.reference)
    return no('other_reference', `the run pays reference ${request.reference}`);
  if (request.amount !== ask.amount)
    return no('other_amount', `the run pays ${request.amount} kopecks, not ${ask.amount}`);
  if (ctx.ledgerOf(request.recipient.taxReference) !== ctx.ledgerId)
    return no('other_recipient', "the run pays someone other than this ledger's person");
  if (request.selfEmployed !== ask.selfEmployed)
    return no(
      'other_kind',
      `the run pays ${request.selfEmployed ? 'a self-employed' : 'a not self-employed'} row`,
    );
  return { ok: true, request };
}

/**
 * When a proven payout's amount counts as the recipient's income: now, or, for a row scheduled for a later
 * day, 00:00 Moscow time of that day. A row submitted in December for January counts in January's year and
 * month, under that year's cap, not in the year it was reserved in.
 */
export function countsFrom(request: Pick<PayoutRequest, 'payOn'>, nowMs: number): number {
  return request.payOn === undefined ? nowMs : Math.max(nowMs, payOnWakeMs(request.payOn));
}
