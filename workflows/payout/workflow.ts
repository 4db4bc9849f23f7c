import { setHandler, workflowInfo } from '@temporalio/workflow';
import { parseSignedStatement } from '../shared/approval';
import { bankEventSignal, parseBankEvent } from '../shared/bank-event-contract';
import {
  approvePayoutUpdate,
  approveSignal,
  cancelPayoutUpdate,
  cancelSignal,
  payoutStatusQuery,
  parsePayoutInput,
  payoutWorkflowId,
  reportToSignal,
  type PayoutInput,
  type PayoutStatus,
} from './contract';
import { taxpayerVerdictSignal } from '../taxpayer/contract';
import { handleOperatorCommands, operatorCommand } from '../shared/operator-command';
import { PayoutRun } from './run';
import { parsePayoutCarry, type PayoutCarry } from './state';
import { isBatchId } from '../../src/domain/rules';
import { invalidInput } from '../shared/parse';
import { parseCancellation } from '../shared/operator-contract';

/**
 * One payout to one recipient, paid at most once whoever starts it. The steps are PayoutRun's
 * (workflows/payout/run.ts); this wires the query, signals and Updates to it. `carry` is what the
 * payout's own continue-as-new hands its next run (a history near Temporal's limits), and is taken from
 * nobody else. docs/payouts.md describes every step and ending.
 */
export async function payoutWorkflow(raw: PayoutInput, carry?: PayoutCarry): Promise<PayoutStatus> {
  const parsed = parsePayoutInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  // The reference is the payout's identity: under any other id Temporal's one-run-per-id rule would
  // not stop a second payment of the same reference.
  const { workflowId, continuedFromExecutionRunId } = workflowInfo();
  const expectedId = payoutWorkflowId(input.request.reference);
  if (workflowId !== expectedId)
    throw invalidInput(
      `workflow id must be ${expectedId} for reference ${input.request.reference}, not ${workflowId}`,
    );
  if (carry !== undefined && (continuedFromExecutionRunId === undefined || !carry?.tracker?.status))
    throw invalidInput('only the payout itself may hand a run its state (by continuing as new)');
  const carried = carry === undefined ? undefined : parsePayoutCarry(carry);
  if (carried && !carried.ok) throw invalidInput(carried.message);

  const run = new PayoutRun(input, carried?.value);
  const note = (text: string) => run.tracker.note(text);
  setHandler(payoutStatusQuery, () => run.status);
  setHandler(bankEventSignal, (evt) => {
    const r = parseBankEvent(evt);
    if (r.ok) run.tracker.applyEvent(r.value);
    else note(`ignored a malformed bankEvent signal: ${r.message}`);
  });
  setHandler(taxpayerVerdictSignal, (v) => run.verdictSignalled(v));
  handleOperatorCommands([
    operatorCommand({
      name: 'approve',
      update: approvePayoutUpdate,
      signal: approveSignal,
      parse: (a) => {
        const r = parseSignedStatement(a);
        return r.ok ? r : { ok: false, message: r.reason };
      },
      admit: (signed) => run.admitApproval(signed),
      act: (signed) => run.approve(signed),
      ignored: note,
      answered: (signed, answer) => note(`approve signal from ${signed.statement.person}: ${answer}`),
    }),
    operatorCommand({
      name: 'cancel',
      update: cancelPayoutUpdate,
      signal: cancelSignal,
      parse: parseCancellation,
      act: (c) => run.cancel(c),
      ignored: note,
    }),
  ]);
  setHandler(reportToSignal, (r) => {
    if (typeof r?.batchId === 'string' && isBatchId(r.batchId)) run.state.reportTo ??= r.batchId;
    else note('ignored a malformed reportTo signal');
  });

  try {
    return await run.run();
  } finally {
    await run.tellBatch(run.state.reportTo);
  }
}
