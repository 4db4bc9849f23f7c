import { InvalidArgumentError, type Command } from 'commander';
import { describeError, loadOptionsFor } from '../batch/commands/submit';
import { loadBatchPaths } from '../batch/services/config';
import { moscowTime, t } from '../i18n';
import { requireSigner } from '../policy/credential';
import { loadPolicy } from '../policy/file';
import { isScheduleName } from '../../workflows/recurring-payrun/contract';
import {
  calendarText,
  calendarWords,
  createRecurring,
  deleteRecurring,
  describeRecurring,
  listRecurring,
  pauseRecurring,
  resumeRecurring,
  ScheduleRefused,
  TemplateRefused,
  type Calendar,
} from '../schedules/manage';
import { CliFailure, withClient } from './connect';
import { operator } from './operator';

/** `payrun schedule …`: recurring payruns on Temporal Schedules (issue 42, docs/batches.md "Recurring payruns"). */
export function registerSchedule(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('recurring payruns: a template submitted on a calendar, each period approved on its own');

  schedule
    .command('create')
    .argument('<name>', 'the schedule’s name: 1–40 of a-z 0-9 -', parseName)
    .requiredOption('--file <path>', 'the template: a batch file without pay_on dates')
    .requiredOption('--days <list>', 'days of the month, 1–28, e.g. 5,20', parseDays)
    .option('--at <HH:MM>', 'Moscow time of each period', parseAt, { hour: 9, minute: 0 })
    .description(
      'sign a template as its preparer and submit it on every date of the calendar, each for approval',
    )
    .action(
      async (name: string, flags: { file: string; days: number[]; at: { hour: number; minute: number } }) => {
        const preparer = requireSigner();
        const policy = loadPolicy();
        const calendar: Calendar = { days: flags.days, ...flags.at };
        await withClient(async (client, taskQueue) => {
          const load = loadOptionsFor({ paths: loadBatchPaths() });
          const r = await refusals(
            () =>
              createRecurring(client, {
                name,
                templatePath: flags.file,
                calendar,
                taskQueue,
                preparer,
                policy,
                load,
              }),
            flags.file,
          );
          console.log(
            t('recurring.created', {
              name,
              rows: r.rows,
              kopecks: r.totalKopecks,
              calendar: calendarWords(calendarText(calendar)),
              ...(r.next ? { next: moscowTime(r.next.toISOString()) } : {}),
            }),
          );
        });
      },
    );

  schedule
    .command('list')
    .description('every recurring payrun: its calendar, next period, preparer, and whether it is paused')
    .action(async () => {
      await withClient(async (client) => {
        const views = await listRecurring(client);
        if (views.length === 0) console.log(t('recurring.none'));
        for (const v of views)
          console.log(
            t('recurring.list_line', {
              name: v.name,
              calendar: calendarWords(v.calendar),
              paused: v.paused,
              preparer: v.preparer,
              periods: v.periods,
              ...(v.next ? { next: moscowTime(v.next.toISOString()) } : {}),
            }),
          );
      });
    });

  schedule
    .command('pause')
    .argument('<name>', 'the schedule’s name', parseName)
    .option('--by <name>', 'who asks (default: the person signed in, else $USER)')
    .option('--reason <text>', 'why, for Temporal UI and the audit')
    .description('start no new period until resumed (batches already submitted go on)')
    .action(async (name: string, flags: { by?: string; reason?: string }) => {
      const who = operator(flags);
      await withClient(async (client) => {
        await refusals(() => pauseRecurring(client, name, noteOf('pause', who)));
        console.log(t('recurring.paused', { name }));
      });
    });

  schedule
    .command('resume')
    .argument('<name>', 'the schedule’s name', parseName)
    .option('--by <name>', 'who asks (default: the person signed in, else $USER)')
    .option('--reason <text>', 'why, for Temporal UI and the audit')
    .description('start periods again from the next date of the calendar')
    .action(async (name: string, flags: { by?: string; reason?: string }) => {
      const who = operator(flags);
      await withClient(async (client) => {
        await refusals(() => resumeRecurring(client, name, noteOf('resume', who)));
        const next = (await describeRecurring(client, name)).next;
        console.log(
          t('recurring.resumed', { name, ...(next ? { next: moscowTime(next.toISOString()) } : {}) }),
        );
      });
    });

  schedule
    .command('delete')
    .argument('<name>', 'the schedule’s name', parseName)
    .description('remove the schedule (batches it already submitted go on)')
    .action(async (name: string) => {
      await withClient(async (client) => {
        await refusals(() => deleteRecurring(client, name));
        console.log(t('recurring.deleted', { name }));
      });
    });
}

const noteOf = (act: string, who: { by: string; reason?: string }) =>
  `${act} by ${who.by}${who.reason ? `: ${who.reason}` : ''}`;

/** A refusal as the command's answer (exit 1): each template error on its own line, naming row, column, rule. */
async function refusals<T>(call: () => Promise<T>, file?: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof TemplateRefused) {
      for (const e of err.errors) console.error(describeError(e));
      throw new CliFailure(t('recurring.template_refused', { file: file ?? '', errors: err.errors.length }));
    }
    if (err instanceof ScheduleRefused) throw new CliFailure(err.message);
    throw err;
  }
}

function parseName(value: string): string {
  if (!isScheduleName(value)) throw new InvalidArgumentError(t('recurring.bad_name'));
  return value;
}

function parseDays(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const days = parts.map((p) => (/^\d{1,2}$/.test(p) ? Number(p) : NaN));
  if (days.some((d) => !(d >= 1 && d <= 28))) throw new InvalidArgumentError(t('recurring.bad_days'));
  return [...new Set(days)].sort((a, b) => a - b);
}

function parseAt(value: string): { hour: number; minute: number } {
  const m = /^(\d{1,2}):(\d{2})$/.exec(value.trim());
  const hour = m ? Number(m[1]) : NaN;
  const minute = m ? Number(m[2]) : NaN;
  if (!(hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59))
    throw new InvalidArgumentError(t('recurring.bad_at'));
  return { hour, minute };
}
