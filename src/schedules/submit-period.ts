/**
 * One period of a recurring payrun submitted: the template proven (statement.ts), the period's file
 * derived (period-file.ts) and submitted like any file, by the service identity of the process that runs
 * this (the watcher), with approval always required. The same period again is the same bytes: the batch
 * it started is answered, nothing new.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { loadOptionsFor, submitBatch } from '../batch/commands/submit';
import type { BatchPaths } from '../batch/services/config';
import type { Policy } from '../policy/file';
import type { Signer } from '../policy/keys';
import { writePrivateFile } from '../private-fs';
import {
  periodFileName,
  type PeriodOutcome,
  type PeriodSubmission,
} from '../../workflows/recurring-payrun/contract';
import type { BatchOptions } from '../../workflows/batch/contract';
import { periodFile } from './period-file';
import { provenTemplate } from './statement';

export interface PeriodSubmitterDeps {
  client: Client;
  paths: BatchPaths;
  /** The worker's task queue, where the period's batch runs. */
  taskQueue: string;
  /** The service identity that signs each period's submit statement (the watcher's key). */
  submitter: Signer;
  /** The worker's policy, read afresh: a preparer revoked since the schedule was made submits nothing. */
  policy: { current(): Policy };
  batchOptions?: BatchOptions;
}

export async function submitPeriod(
  deps: PeriodSubmitterDeps,
  input: PeriodSubmission,
): Promise<PeriodOutcome> {
  const whoMayPay = deps.policy.current();
  const template = provenTemplate(input, whoMayPay, loadOptionsFor({ paths: deps.paths }));
  const fileName = periodFileName(input.schedule, input.period);
  const dir = mkdtempSync(join(tmpdir(), 'payrun-period-'));
  const file = join(dir, fileName);
  try {
    writePrivateFile(file, periodFile(template, input.period));
    const r = await submitBatch(deps.client, file, {
      paths: deps.paths,
      taskQueue: deps.taskQueue,
      submitter: deps.submitter,
      whoMayPay,
      source: 'schedule',
      batchOptions: { ...deps.batchOptions, requireApproval: true },
    });
    const { period } = input;
    if (r.status === 'rejected')
      return { status: 'rejected', period, batchId: r.batchId, fileName, errorCount: r.errorCount };
    return { status: r.status, period, batchId: r.batchId, fileName };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
