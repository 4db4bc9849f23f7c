import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { Command } from 'commander';
import { lookupPayout } from '../batch/services/lookup';
import { t } from '../i18n';
import { formatRubles } from '../money';
import { requireSigner } from '../policy/credential';
import { signStatement } from '../policy/keys';
import {
  approvePayoutUpdate,
  cancelPayoutUpdate,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutStatus,
} from '../../workflows/payout/contract';
import { readPayoutEnding } from '../../workflows/payout/ending';
import { CliFailure, withClient } from './connect';
import { operator, sendCommand } from './operator';
import { registerPayoutProof } from './payout-proof';
import { provenReturnOf } from '../returns/read';

/** No card, account, phone or tax number: what the bank said, its ids, the timeline. */
function describeStatus(s: PayoutStatus): string[] {
  const lines = [
    `${s.reference}: ${s.state}, ${formatRubles(s.amount)} ${s.currency.toUpperCase()}${s.batchId ? `, batch ${s.batchId}` : ''}`,
  ];
  if (s.bank.sessionId)
    lines.push(`bank session ${s.bank.sessionId}${s.bank.payoutId ? `, payout ${s.bank.payoutId}` : ''}`);
  if (s.bank.receiptLink) lines.push(`receipt ${s.bank.receiptLink}`);
  if (s.failure) lines.push(`failure ${s.failure.code}: ${s.failure.reason}`);
  for (const [k, v] of Object.entries(s.timestamps)) lines.push(`  ${k} ${v}`);
  for (const n of s.notes) lines.push(`  note: ${n}`);
  return lines;
}

/**
 * The status of a payout, running or closed: a closed one is read from its result or its ending, and a
 * paid one the recipient's bank sent back says so (its return workflow, once it holds the bank's word).
 */
export async function payoutStatus(client: Client, reference: string, taskQueue?: string): Promise<string[]> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  const sessionId = lookup.kind === 'paid' ? lookup.status.bank.sessionId : undefined;
  const proven = taskQueue && sessionId ? await provenReturnOf(client, taskQueue, sessionId) : undefined;
  if (lookup.kind !== 'paid' || !proven?.ok) return describeLookup(client, reference, workflowId, lookup);
  // The payout's own record ended paid; its return workflow holds the bank's word that it came back.
  const first = proven.status.proven[0]!;
  const status: PayoutStatus = {
    ...lookup.status,
    state: 'returned',
    timestamps: { ...lookup.status.timestamps, returned: first.bankDate },
  };
  const [head, ...rest] = describeStatus(status);
  return [
    head!,
    t('return.payout', { date: first.bankDate, words: first.bankWords, source: first.source }),
    ...rest,
  ];
}

async function describeLookup(
  client: Client,
  reference: string,
  workflowId: string,
  lookup: Awaited<ReturnType<typeof lookupPayout>>,
): Promise<string[]> {
  switch (lookup.kind) {
    case 'none':
      throw new CliFailure(`no payout with reference ${reference}`);
    case 'running':
      return describeStatus(await client.workflow.getHandle(workflowId).query(payoutStatusQuery));
    case 'paid':
    case 'not_paid': {
      const closed = lookup.kind === 'paid' ? 'paid' : 'closed, not paid: the reference may be paid again';
      const lines = describeStatus(lookup.status);
      return [`${lines[0]} (${closed})`, ...lines.slice(1)];
    }
    case 'needs_attention': {
      // What to do first; the state the run last reported (say awaiting_ready_to_confirm) is history, not now.
      const head = `${reference}: needs attention: ${lookup.reason}`;
      if (!lookup.status) return [head];
      const [last, ...rest] = describeStatus(lookup.status);
      return [head, `last known: ${last}`, ...rest];
    }
  }
}

/** The input the payout's latest run was started with (decoded through the client's converter). */
async function latestInput(client: Client, workflowId: string): Promise<PayoutInput> {
  // The first event alone: a run flooded with signals has a history too large to fetch whole.
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return decodeFromPayloadsAtIndex<PayoutInput>(
    client.options.loadedDataConverter,
    0,
    started?.input?.payloads,
  );
}

/**
 * Settles a payout in doubt with the bank: a new run of the reference's workflow that only reads the
 * earlier runs' sessions (cancelling one still unconfirmed) and ends paid, not paid, or still in doubt.
 */
export async function reconcile(client: Client, reference: string, taskQueue: string): Promise<string> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  if (lookup.kind === 'none') throw new CliFailure(`no payout with reference ${reference}`);
  if (lookup.kind === 'running') return t('payout.reconcile.running', { reference });
  if (lookup.kind === 'paid') return t('payout.reconcile.paid', { reference, state: lookup.status.state });
  if (lookup.kind === 'not_paid')
    return t('payout.reconcile.notPaid', {
      reference,
      state: lookup.status.state,
      reason: lookup.status.failure?.reason ?? '—',
    });
  const input = await latestInput(client, workflowId);
  const handle = await client.workflow.start('payoutWorkflow', {
    workflowId,
    taskQueue,
    args: [{ ...input, options: { ...input.options, reconcileOnly: true } } satisfies PayoutInput],
  });
  try {
    await handle.result();
    return `${reference}: reconciled`;
  } catch (err) {
    const ending = readPayoutEnding((err as { cause?: unknown }).cause);
    if (ending?.kind === 'paid')
      return t('payout.reconcile.bankPaid', { reference, session: ending.status.bank.sessionId ?? '?' });
    if (ending?.kind === 'not_paid') return t('payout.reconcile.bankPaidNothing', { reference });
    // The reconcile run's reason names what only a person can check (never this command again).
    if (ending?.kind === 'needs_attention')
      throw new CliFailure(
        t('payout.reconcile.personMustCheck', { reference, reason: ending.status.failure?.reason ?? '—' }),
      );
    throw err;
  }
}

export function registerPayout(program: Command): void {
  const payout = program.command('payout').description('look at and operate single payouts');
  payout
    .command('status')
    .argument('<reference>', 'the payout reference (the batch file’s reference column)')
    .description('state, bank ids, failure and timeline of a payout, running or closed')
    .action(async (reference: string) => {
      await withClient(async (client, taskQueue) => {
        for (const line of await payoutStatus(client, reference, taskQueue)) console.log(line);
      });
    });
  payout
    .command('reconcile')
    .argument('<reference>', 'a payout that needs attention')
    .description('ask the bank what became of a payout in doubt and record it: paid, or free to pay again')
    .action(async (reference: string) => {
      await withClient(async (client, taskQueue) =>
        console.log(await reconcile(client, reference, taskQueue)),
      );
    });
  registerPayoutProof(payout);
  payout
    .command('approve')
    .argument('<reference>', 'the payout reference')
    .description('approve a payout that waits for approval (started outside a batch), signed with your key')
    .action(async (reference: string) => {
      const signer = requireSigner();
      await withClient(async (client) => {
        const handle = client.workflow.getHandle(payoutWorkflowId(reference));
        // The approval is of this run as it stands: its run id and amount are what the signature covers.
        const { runId } = await handle.describe();
        const status = await handle.query(payoutStatusQuery);
        const signed = signStatement(signer, {
          kind: 'payout',
          decision: 'approve',
          reference,
          runId,
          amount: status.amount,
        });
        console.log(`${reference}: ${await sendCommand(handle, approvePayoutUpdate, signed)}`);
      });
    });
  payout
    .command('cancel')
    .argument('<reference>', 'the payout reference')
    .option('--by <name>', 'who asks (default: the person signed in, else $USER)')
    .option('--reason <text>', 'why, for the audit trail')
    .description('cancel a payout before it is confirmed')
    .action(async (reference: string, flags: { by?: string; reason?: string }) => {
      await withClient(async (client) => {
        const handle = client.workflow.getHandle(payoutWorkflowId(reference));
        console.log(`${reference}: ${await sendCommand(handle, cancelPayoutUpdate, operator(flags))}`);
      });
    });
}
