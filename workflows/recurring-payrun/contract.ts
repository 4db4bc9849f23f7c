import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import type { ScheduleStatement, SignedStatement } from '../shared/approval-contract';
import { signedStatementSchema } from '../shared/approval-proofs';
import { base64, object, parseWith, type Result } from '../shared/parse';

// The recurring payrun's contract (`payrun schedule …`, docs/batches.md "Recurring payruns"): a Temporal
// Schedule starts one run per period; the run asks the submitter (the watcher's queue) to submit that
// period's file, derived from the preparer's template, as a batch that waits for its own approval.

/** A schedule's name: what the preparer types, part of Temporal ids. */
export const isScheduleName = (v: unknown): v is string =>
  typeof v === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(v);

export const scheduleIdOf = (name: string) => `payrun-schedule-${name}`;
/** The workflow id each period's run starts with (the schedule appends the period's time). */
export const recurringWorkflowIdOf = (name: string) => `payrun-recurring-${name}`;
export const SCHEDULE_ID_PREFIX = 'payrun-schedule-';

/** The template travels in the schedule's (encrypted) input: a recurring file is a department's list, not a million rows. */
export const TEMPLATE_MAX_BYTES = 1_048_576;

/** Why a period is not submitted and retrying cannot help (the preparer revoked, the template not theirs…). */
export const SCHEDULE_REFUSED_TYPE = 'schedule_refused';

const scheduleStatement = z.strictObject({
  v: z.literal(1),
  kind: z.literal('schedule'),
  decision: z.literal('submit'),
  schedule: z.string().refine(isScheduleName, 'expected a schedule name'),
  fileSha256: z.string().refine((h) => /^[0-9a-f]{64}$/.test(h), 'expected 64 hex digits'),
  totalKopecks: z.number().int().nonnegative(),
  rows: z.number().int().positive(),
  calendar: z.string().min(1).max(200),
  person: z.string().min(1).max(64),
  at: z.string().refine((a) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(a), 'a UTC time'),
  via: z.string().min(1).max(64).optional(),
});
const signedSchedule = signedStatementSchema(scheduleStatement);

const recurringInput = object({
  schedule: z.string().refine(isScheduleName, 'expected a schedule name: 1–40 of a-z 0-9 -'),
  /** The template's bytes, Base64: the period's file is derived from exactly these. */
  template: base64(TEMPLATE_MAX_BYTES, 'the template file'),
  statement: signedSchedule,
  /** Where the submitter listens (`payrun watch` serves it): it holds the batch folders and a service key. */
  submitQueue: z.string().min(1).max(200),
});

export type RecurringPayrunInput = Omit<z.infer<typeof recurringInput>, 'statement'> & {
  statement: SignedStatement<ScheduleStatement>;
};

export function parseRecurringInput(raw: unknown): Result<RecurringPayrunInput> {
  return parseWith(recurringInput, raw);
}

/** What the submitter is asked for one period. */
export interface PeriodSubmission extends RecurringPayrunInput {
  /** The period's Moscow date (YYYY-MM-DD): it names the file and is appended to each reference. */
  period: string;
}

/** What one period's run did: the batch it submitted (which waits for approval), or why the file was refused. */
export type PeriodOutcome =
  | {
      status: 'started' | 'already_submitted' | 'resubmitted';
      period: string;
      batchId: string;
      fileName: string;
    }
  | { status: 'rejected'; period: string; batchId: string; fileName: string; errorCount: number };

/** The period's file name: the schedule's and the period's, the same every time the period is derived. */
export const periodFileName = (schedule: string, period: string) => `${schedule}-${period}.csv`;

/** Where the submitter of a worker's task queue listens: `payrun watch` serves it. */
export const submitQueueOf = (taskQueue: string) => `${taskQueue}.schedules`;

export interface RecurringStatus {
  period?: string;
  stage: 'submitting' | 'done';
  outcome?: PeriodOutcome;
}

export const recurringStatusQuery = defineQuery<RecurringStatus>('recurringStatus');
