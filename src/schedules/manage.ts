/**
 * Recurring payruns as Temporal Schedules (`payrun schedule create|list|pause|resume|delete`): one
 * schedule per name, on a Moscow calendar, starting recurringPayrunWorkflow with the preparer's signed
 * template in its encrypted input. Visible and pausable in Temporal UI's Schedules page too.
 */
import { readFileSync } from 'node:fs';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
} from '@temporalio/client';
import type { LoadOptions, RowError } from '../csv';
import type { Policy } from '../policy/file';
import type { Signer } from '../policy/keys';
import { t } from '../i18n';
import {
  recurringWorkflowIdOf,
  SCHEDULE_ID_PREFIX,
  scheduleIdOf,
  submitQueueOf,
  type RecurringPayrunInput,
} from '../../workflows/recurring-payrun/contract';
import { refusedPreparer, signSchedule } from './statement';
import { checkTemplate } from './template';

export interface Calendar {
  /** Days of the month, 1–28 (every month has them). */
  days: number[];
  /** Moscow time. */
  hour: number;
  minute: number;
}

const hhmm = (c: Calendar) => `${String(c.hour).padStart(2, '0')}:${String(c.minute).padStart(2, '0')}`;
/** The calendar as the preparer's statement and `schedule list` write it: `5,20 09:00`. */
export const calendarText = (c: Calendar) => `${c.days.join(',')} ${hhmm(c)}`;
export const calendarWords = (text: string) => {
  const [days = '', at = ''] = text.split(' ');
  return t('recurring.calendar', { days, at });
};

/** What `schedule list` and Temporal UI's memo say of a schedule: no personal data, the template is in the input. */
export interface ScheduleMemo {
  preparer: string;
  calendar: string;
  rows: number;
  totalKopecks: number;
}
const MEMO_KEY = 'payrunSchedule';

/** The template did not pass: every error named, nothing made. */
export class TemplateRefused extends Error {
  constructor(readonly errors: RowError[]) {
    super(`template refused with ${errors.length} errors`);
  }
}
/** A refusal to show as it is (exists, not found, the preparer's word does not count). */
export class ScheduleRefused extends Error {}

export async function createRecurring(
  client: Client,
  opts: {
    name: string;
    templatePath: string;
    calendar: Calendar;
    taskQueue: string;
    preparer: Signer;
    policy: Policy;
    load: LoadOptions;
  },
): Promise<{ rows: number; totalKopecks: number; next?: Date }> {
  const bytes = readFileSync(opts.templatePath);
  const check = checkTemplate(bytes, opts.load);
  if (!check.ok) throw new TemplateRefused(check.errors);
  const calendar = calendarText(opts.calendar);
  const statement = signSchedule(opts.preparer, {
    schedule: opts.name,
    fileSha256: check.sha256,
    totalKopecks: check.totalKopecks,
    rows: check.rows,
    calendar,
  });
  // Checked here as the submitter will check it at each period: a word that will not count makes nothing.
  const refused = refusedPreparer(opts.policy, statement, Date.now());
  if (refused) throw new ScheduleRefused(t('recurring.not_made', { reason: refused }));
  const input: RecurringPayrunInput = {
    schedule: opts.name,
    template: bytes.toString('base64'),
    statement,
    submitQueue: submitQueueOf(opts.taskQueue),
  };
  const memo: ScheduleMemo = {
    preparer: opts.preparer.person,
    calendar,
    rows: check.rows,
    totalKopecks: check.totalKopecks,
  };
  try {
    const handle = await client.schedule.create({
      scheduleId: scheduleIdOf(opts.name),
      spec: {
        calendars: [
          { dayOfMonth: opts.calendar.days, hour: opts.calendar.hour, minute: opts.calendar.minute },
        ],
        timezone: 'Europe/Moscow',
      },
      action: {
        type: 'startWorkflow',
        workflowType: 'recurringPayrunWorkflow',
        workflowId: recurringWorkflowIdOf(opts.name),
        taskQueue: opts.taskQueue,
        args: [input],
      },
      // A period is its own batch (the same period twice is the same file): periods never block each other.
      // A server down over a period catches it up within a week; it still waits for approval.
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '7 days' },
      memo: { [MEMO_KEY]: memo },
      state: { note: `payrun schedule create ${opts.name} (${opts.preparer.person})` },
    });
    const next = (await handle.describe()).info.nextActionTimes[0];
    return { rows: check.rows, totalKopecks: check.totalKopecks, ...(next ? { next } : {}) };
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning)
      throw new ScheduleRefused(t('recurring.exists', { name: opts.name }));
    throw err;
  }
}

export interface RecurringView extends ScheduleMemo {
  name: string;
  paused: boolean;
  next?: Date;
  periods: number;
}

export async function listRecurring(client: Client): Promise<RecurringView[]> {
  const views: RecurringView[] = [];
  for await (const summary of client.schedule.list()) {
    if (!summary.scheduleId.startsWith(SCHEDULE_ID_PREFIX)) continue;
    views.push(await describeRecurring(client, summary.scheduleId.slice(SCHEDULE_ID_PREFIX.length)));
  }
  return views.sort((a, b) => (a.name < b.name ? -1 : 1));
}

export async function describeRecurring(client: Client, name: string): Promise<RecurringView> {
  const d = await known(name, () => client.schedule.getHandle(scheduleIdOf(name)).describe());
  const memo = (d.memo?.[MEMO_KEY] ?? {}) as Partial<ScheduleMemo>;
  const next = d.info.nextActionTimes[0];
  return {
    name,
    preparer: memo.preparer ?? '?',
    calendar: memo.calendar ?? '?',
    rows: memo.rows ?? 0,
    totalKopecks: memo.totalKopecks ?? 0,
    paused: d.state.paused,
    periods: d.info.numActionsTaken,
    ...(next ? { next } : {}),
  };
}

export async function pauseRecurring(client: Client, name: string, note: string): Promise<void> {
  await known(name, () => client.schedule.getHandle(scheduleIdOf(name)).pause(note));
}

export async function resumeRecurring(client: Client, name: string, note: string): Promise<void> {
  await known(name, () => client.schedule.getHandle(scheduleIdOf(name)).unpause(note));
}

export async function deleteRecurring(client: Client, name: string): Promise<void> {
  await known(name, () => client.schedule.getHandle(scheduleIdOf(name)).delete());
}

async function known<T>(name: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new ScheduleRefused(t('recurring.not_found', { name }));
    throw err;
  }
}
