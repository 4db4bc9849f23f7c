import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';
import { t } from '../i18n';
import { formatRubles, MoneyFormatError, rublesToKopecks } from '../money';
import {
  parseRefundInput,
  readRefundEnding,
  refundStatusQuery,
  refundWorkflowId,
  type RefundInput,
  type RefundStatus,
} from '../../workflows/refund/contract';
import { CliFailure, withClient } from './connect';

/** What an operator needs: state, amount, bank ids, failure, timeline (no personal data is in a refund's status). */
function describeRefund(s: RefundStatus, closed?: string): string[] {
  const amount = s.amount !== undefined ? `${formatRubles(s.amount)} ₽` : 'the whole remaining amount';
  const lines = [
    `${s.reference}: ${s.state}${closed ? ` (${closed})` : ''}, ${amount} of session ${s.sessionId}`,
  ];
  if (s.refundId) lines.push(`bank refund ${s.refundId}`);
  if (s.failure) lines.push(`failure ${s.failure.code}: ${s.failure.reason}`);
  for (const [k, v] of Object.entries(s.timestamps)) lines.push(`  ${k} ${v}`);
  for (const n of s.notes) lines.push(`  note: ${n}`);
  return lines;
}

/** The latest run of a refund, running or closed. */
export async function refundStatus(client: Client, reference: string): Promise<string[]> {
  const handle = client.workflow.getHandle(refundWorkflowId(reference));
  let state: string;
  try {
    state = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new CliFailure(`no refund with reference ${reference}`);
    throw err;
  }
  if (state === 'RUNNING') return describeRefund(await handle.query(refundStatusQuery));
  try {
    return describeRefund((await handle.result()) as RefundStatus, 'refunded');
  } catch (err) {
    const ending = readRefundEnding(err instanceof WorkflowFailedError ? err.cause : undefined);
    if (ending?.kind === 'refunded') return describeRefund(ending.status, 'an earlier run refunded it');
    if (ending?.kind === 'not_refunded') return describeRefund(ending.status, 'nothing refunded');
    if (ending) {
      const reason = ending.status.failure?.reason ?? '—';
      return [t('refund.status.personMustCheck', { reference, reason }), ...describeRefund(ending.status)];
    }
    const why = err instanceof WorkflowFailedError ? (err.cause?.message ?? err.message) : String(err);
    return [t('refund.status.unknownEnding', { reference, how: state.toLowerCase(), why })];
  }
}

/**
 * Starts the refund under its one workflow id. A second start of a running refund is refused by
 * Temporal; one after it closed is a new run that settles the earlier ones before refunding anything.
 */
export async function createRefund(
  client: Client,
  taskQueue: string,
  input: RefundInput,
  wait: boolean,
): Promise<string[]> {
  const checked = parseRefundInput(input);
  if (!checked.ok) throw new CliFailure(`refund not started: ${checked.message}`);
  const workflowId = refundWorkflowId(input.reference);
  try {
    const handle = await client.workflow.start('refundWorkflow', {
      workflowId,
      taskQueue,
      args: [checked.value],
    });
    if (!wait)
      return [`${input.reference}: refund started (${workflowId}); payrun refund status ${input.reference}`];
    await handle.result().catch(() => undefined); // the status below says how it ended
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    throw new CliFailure(
      `${input.reference}: a refund with this reference is already running (${workflowId})`,
    );
  }
  return refundStatus(client, input.reference);
}

const rubles = (value: string): number => {
  try {
    return rublesToKopecks(value);
  } catch (err) {
    if (err instanceof MoneyFormatError)
      throw new InvalidArgumentError(t('usage.rubles', { why: err.message }));
    throw err;
  }
};

export function registerRefund(program: Command): void {
  const refund = program
    .command('refund')
    .description('refund a succeeded payment session, at most once per reference');
  refund
    .command('create')
    .requiredOption('--reference <reference>', 'the refund’s own reference: one refund per reference, ever')
    .requiredOption('--session <sessionId>', 'the succeeded payment session to refund')
    .option('--amount <rubles>', 'how much, in rubles ("200,00"); absent: the whole remaining amount', rubles)
    .option('--wait', 'wait until the bank accepts the refund (or refuses it) and print its status')
    .description('start the refund workflow refund-<reference>')
    .action(async (flags: { reference: string; session: string; amount?: number; wait?: boolean }) => {
      await withClient(async (client, taskQueue) => {
        const input: RefundInput = {
          reference: flags.reference,
          sessionId: flags.session,
          ...(flags.amount !== undefined ? { amount: flags.amount } : {}),
        };
        for (const line of await createRefund(client, taskQueue, input, flags.wait === true))
          console.log(line);
      });
    });
  refund
    .command('status')
    .argument('<reference>', 'the refund’s reference')
    .description('state, amount, bank refund id, failure and timeline of a refund, running or closed')
    .action(async (reference: string) => {
      await withClient(async (client) => {
        for (const line of await refundStatus(client, reference)) console.log(line);
      });
    });
}
