import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { recipientLedgerId } from '../../activities/recipient';
import { refreshRecipientUpdate, type RecipientView } from '../../workflows/contracts/recipient';
import { moscowTime, t } from '../i18n';
import { loadPolicy, POLICY_VARIABLE } from '../policy/file';
import { withClient } from './connect';

/** A tax number as a command may print it: its last four digits. */
const masked = (inn: string) => `${'*'.repeat(inn.length - 4)}${inn.slice(-4)}`;

function taxNumber(value: string): string {
  if (!/^(\d{10}|\d{12})$/.test(value))
    throw new InvalidArgumentError('expected a tax number (INN): 10 or 12 digits');
  return value;
}

export function describeRecipient(inn: string, view: RecipientView | undefined, env = process.env): string[] {
  const who = masked(inn);
  if (!view || view.years.length === 0) return [t('recipient.none', { who })];
  const limits = env[POLICY_VARIABLE] ? loadPolicy(env).limitsFor(inn, true) : undefined;
  const lines = [t('recipient.header', { who })];
  for (const y of view.years) {
    lines.push(t('recipient.year', { year: y.year, paid: y.paidKopecks, reserved: y.reservedKopecks }));
    if (limits?.yearlyCapKopecks !== undefined) {
      const known = limits.knownIncomeKopecks ?? 0;
      const left = Math.max(0, limits.yearlyCapKopecks - known - y.paidKopecks - y.reservedKopecks);
      lines.push(t('recipient.headroom', { cap: limits.yearlyCapKopecks, known, left }));
    }
    for (const p of y.payouts)
      lines.push(
        t('recipient.payout', {
          when: moscowTime(p.at),
          reference: p.reference,
          amount: p.amount,
          state: p.state,
        }),
      );
  }
  return lines;
}

export function registerRecipient(program: Command): void {
  program
    .command('recipient')
    .description("one person's year: paid, reserved, headroom under the self-employed cap")
    .command('show')
    .argument('<inn>', 'the tax number (printed masked)', taxNumber)
    .option('--json', 'the ledger as JSON')
    .action(async (inn: string, flags: { json?: boolean }) => {
      const view = await withClient(async (client, taskQueue) => {
        try {
          // Settled first: payouts that ended since their reservation show as paid or released.
          return await client.workflow
            .getHandle(recipientLedgerId(taskQueue, inn))
            .executeUpdate(refreshRecipientUpdate);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        }
      });
      if (flags.json) return console.log(JSON.stringify(view ?? { years: [], openReservations: 0 }, null, 2));
      for (const line of describeRecipient(inn, view)) console.log(line);
    });
}
