import { InvalidArgumentError, type Command } from 'commander';
import { loadBatchPaths } from '../batch/services/config';
import { cancelScheduledDate } from '../batch/commands/cancel-scheduled';
import { batchStoreFor } from '../batch/store/open';
import { readPayOn } from '../domain';
import { t } from '../i18n';
import { commandAnswer } from '../i18n/operator-answers';
import { CliFailure, withClient } from './connect';
import { operator } from './operator';

/** `payrun batch cancel-scheduled`: one date's sleeping rows of a batch cancelled (issue 42). */
export function registerCancelScheduled(batch: Command): void {
  batch
    .command('cancel-scheduled')
    .argument('<id>', 'batch id')
    .requiredOption(
      '--date <date>',
      'the pay-on date whose rows are cancelled: DD.MM.YYYY or YYYY-MM-DD',
      parsePayOnDate,
    )
    .option('--by <name>', 'who asks (default: the person signed in, else $USER)')
    .option('--reason <text>', 'why, for the audit trail')
    .description("cancel a batch's rows that still wait for one pay-on date; their reservations are released")
    .action(async (id: string, flags: { date: string; by?: string; reason?: string }) => {
      const payOn = flags.date; // YYYY-MM-DD: parsePayOnDate read it
      const who = operator(flags);
      const store = batchStoreFor(loadBatchPaths().dataDir);
      if (!(await store.exists(id)))
        throw new CliFailure(t('decision.not_in_store', { batchId: id, where: store.where }));
      await withClient(async (client) => {
        const r = await cancelScheduledDate(client, store, id, payOn, who);
        if (r.rows === 0) throw new CliFailure(t('schedule.cancel_none', { batchId: id, payOn }));
        console.log(t('schedule.cancel_done', { payOn, rows: r.rows, cancelled: r.cancelled.length }));
        for (const reference of r.cancelled) console.log(t('schedule.cancel_row', { reference }));
        for (const { reference, state } of r.notAsleep)
          console.log(
            t('schedule.cancel_not_asleep', {
              reference,
              state: state === 'not_started' ? t('schedule.cancel_not_started') : t('state.name', { state }),
            }),
          );
        for (const { reference, reason } of r.refused)
          console.log(t('schedule.cancel_refused', { reference, reason: commandAnswer(reason) }));
      });
    });
}

/** `--date`: a calendar day as the file writes pay_on, as YYYY-MM-DD; else a usage error naming it. */
function parsePayOnDate(value: string): string {
  const payOn = readPayOn(value);
  if (!payOn) throw new InvalidArgumentError(t('schedule.cancel_bad_date'));
  return payOn;
}
