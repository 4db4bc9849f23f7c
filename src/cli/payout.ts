import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { Command } from 'commander';
import { lookupPayout } from '../batch/services/lookup';
import { currentLang, moscowTime, t, type Lang } from '../i18n';
import { lookupReasonText, payoutFailureText } from '../i18n/row-reasons';
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

/** No card, account, phone or tax number: what the bank said, its ids, the timeline, in the language set. */
function describeStatus(s: PayoutStatus, lang: Lang): string[] {
  const lines = [
    t(
      'payoutStatus.head',
      {
        reference: s.reference,
        state: t('state.name', { state: s.state }, lang),
        amount: s.amount,
        ...(s.batchId ? { batchId: s.batchId } : {}),
      },
      lang,
    ),
  ];
  if (s.bank.sessionId)
    lines.push(
      t(
        'payoutStatus.bank',
        { sessionId: s.bank.sessionId, ...(s.bank.payoutId ? { payoutId: s.bank.payoutId } : {}) },
        lang,
      ),
    );
  if (s.bank.receiptLink) lines.push(t('payoutStatus.receipt', { link: s.bank.receiptLink }, lang));
  if (s.failure) lines.push(t('payoutStatus.failure', { why: payoutFailureText(s, lang) }, lang));
  for (const [key, at] of Object.entries(s.timestamps))
    lines.push(
      t('payoutStatus.step', { at: moscowTime(at, lang), step: t('timeline.step', { key }, lang) }, lang),
    );
  // The workflow's own notes are English diagnostics (kept for Temporal UI): counted here, not shown.
  if (s.notes.length)
    lines.push(
      t('payoutStatus.notes', { count: s.notes.length, workflowId: payoutWorkflowId(s.reference) }, lang),
    );
  return lines;
}

/**
 * The status of a payout, running or closed: a closed one is read from its result or its ending, and a
 * paid one the recipient's bank sent back says so (its return workflow, once it holds the bank's word).
 */
export async function payoutStatus(
  client: Client,
  reference: string,
  taskQueue?: string,
  lang: Lang = currentLang(),
): Promise<string[]> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  const sessionId = lookup.kind === 'paid' ? lookup.status.bank.sessionId : undefined;
  const proven = taskQueue && sessionId ? await provenReturnOf(client, taskQueue, sessionId) : undefined;
  if (lookup.kind !== 'paid' || !proven?.ok)
    return describeLookup(client, reference, workflowId, lookup, lang);
  // The payout's own record ended paid; its return workflow holds the bank's word that it came back.
  const first = proven.status.proven[0]!;
  const status: PayoutStatus = {
    ...lookup.status,
    state: 'returned',
    timestamps: { ...lookup.status.timestamps, returned: first.bankDate },
  };
  const [head, ...rest] = describeStatus(status, lang);
  return [
    head!,
    t('return.payout', { date: first.bankDate, words: first.bankWords, source: first.source }, lang),
    ...rest,
  ];
}

async function describeLookup(
  client: Client,
  reference: string,
  workflowId: string,
  lookup: Awaited<ReturnType<typeof lookupPayout>>,
  lang: Lang,
): Promise<string[]> {
  switch (lookup.kind) {
    case 'none':
      throw new CliFailure(t('payoutStatus.none', { reference }, lang));
    case 'running':
      return describeStatus(await client.workflow.getHandle(workflowId).query(payoutStatusQuery), lang);
    case 'paid':
    case 'not_paid': {
      const closed = t('payoutStatus.closed', { paid: lookup.kind === 'paid' }, lang);
      const lines = describeStatus(lookup.status, lang);
      return [`${lines[0]} (${closed})`, ...lines.slice(1)];
    }
    case 'needs_attention': {
      // What to do first; the state the run last reported (say awaiting_ready_to_confirm) is history, not now.
      const reason = lookupReasonText(lookup.reason, lang) ?? lookup.reason;
      const head = t('payoutStatus.attention', { reference, reason }, lang);
      if (!lookup.status) return [head];
      const [last, ...rest] = describeStatus(lookup.status, lang);
      return [head, t('payoutStatus.last_known', { line: last! }, lang), ...rest];
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
  if (lookup.kind === 'none') throw new CliFailure(t('payoutStatus.none', { reference }));
  if (lookup.kind === 'running') return t('payout.reconcile.running', { reference });
  if (lookup.kind === 'paid') return t('payout.reconcile.paid', { reference, state: lookup.status.state });
  if (lookup.kind === 'not_paid')
    return t('payout.reconcile.notPaid', {
      reference,
      state: lookup.status.state,
      reason: lookup.status.failure ? payoutFailureText(lookup.status) : '—',
    });
  const input = await latestInput(client, workflowId);
  const handle = await client.workflow.start('payoutWorkflow', {
    workflowId,
    taskQueue,
    args: [{ ...input, options: { ...input.options, reconcileOnly: true } } satisfies PayoutInput],
  });
  try {
    await handle.result();
    return t('payout.reconcile.done', { reference });
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
