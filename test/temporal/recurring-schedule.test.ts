import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScheduleOverlapPolicy, WorkflowFailedError } from '@temporalio/client';
import type { BatchPaths } from '../../src/batch/services/config';
import { contentHash } from '../../src/csv';
import { periodFile, periodReference } from '../../src/schedules/period-file';
import { batchProgressQuery, batchWorkflowId } from '../../workflows/batch/contract';
import {
  recurringWorkflowIdOf,
  scheduleIdOf,
  type PeriodOutcome,
  type RecurringPayrunInput,
} from '../../workflows/recurring-payrun/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  freshInn,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { underLoad } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnPayrunProcess } from '../harness/worker-process';

/**
 * Recurring payruns (issue 42, docs/batches.md "Recurring payruns") on the real stack: a preparer's
 * template made a Temporal Schedule with `payrun schedule create`, two periods simulated by a backfill,
 * each submitted by the `payrun watch` process as its own batch that waits for approval (though this
 * stack's policy asks none of submitted files), each paid once when approved, never before.
 */
const TIMEOUT = underLoad(180_000);

let stack: Stack;
let paths: BatchPaths;
let watcher: ChildProcess;
let watcherOut = '';
const made: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  paths = batchTestPaths();
  watcher = spawnPayrunProcess(['watch', '--interval', '1'], {
    ...stack.cliEnv('watcher'),
    PAYRUN_DATA_DIR: paths.dataDir,
    PAYRUN_BATCHES_DIR: paths.batchesDir,
  });
  watcher.stdout?.on('data', (b: Buffer) => (watcherOut += b.toString()));
  watcher.stderr?.on('data', (b: Buffer) => (watcherOut += b.toString()));
  await waitFor(
    async () => /отправляю периоды регулярных выплат/.test(watcherOut),
    TIMEOUT,
    'the watcher serving schedules',
  );
}, TIMEOUT);

afterAll(async () => {
  for (const name of made)
    await stack.client.schedule
      .getHandle(scheduleIdOf(name))
      .delete()
      .catch(() => {});
  if (watcher) await killHard(watcher);
  await stack?.stop();
});

/** A nominal period time: 10:00 Moscow time of that day. */
const tenMsk = (day: string) => new Date(`${day}T07:00:00.000Z`);
const runOf = (name: string, day: string) =>
  stack.client.workflow.getHandle(
    `${recurringWorkflowIdOf(name)}-${tenMsk(day).toISOString().replace('.000', '')}`,
  );

async function periodResult(name: string, day: string): Promise<PeriodOutcome> {
  const handle = runOf(name, day);
  await waitFor(
    async () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    TIMEOUT,
    `the ${day} run started`,
  );
  return (await handle.result()) as PeriodOutcome;
}

test(
  'a schedule submits each of two periods as its own batch, each waits for approval and pays once',
  async () => {
    const p = uniquePrefix();
    const name = `r${p.slice(1)}`;
    const template = batchCsv(
      [
        { reference: `${p}-a`, inn: freshInn(Number.parseInt(p.slice(1, 7), 16) % 100_000_000) },
        { reference: `${p}-b`, selfEmployed: false, amount: '2 500,00' },
      ],
      { win1251: true },
    );
    const file = join(paths.batchesDir, `${p}-template.csv`);
    writeFileSync(file, template);
    const preparer = stack.cliEnv('preparer');

    // Refusals first: an approver prepares nothing; a day some month lacks; a dated row in a template.
    const approver = await runCli(
      ['schedule', 'create', name, '--file', file, '--days', '5,20'],
      stack.cliEnv('approver'),
    );
    expect(approver.code).toBe(1);
    expect(approver.stderr).toMatch(
      /подпись шаблона \(approver\) не действует: approver не может отправлять файлы .*; расписание не создано$/m,
    );
    const day31 = await runCli(['schedule', 'create', name, '--file', file, '--days', '5,31'], preparer);
    expect(day31.code).toBe(2);
    expect(day31.stderr).toMatch(/параметр --days: не дни месяца; числа от 1 до 28/);
    const dated = join(paths.batchesDir, `${p}-dated.csv`);
    writeFileSync(dated, batchCsv([{ reference: `${p}-d`, payOn: '05.01.2027' }], { win1251: true }));
    const datedRun = await runCli(['schedule', 'create', name, '--file', dated, '--days', '5'], preparer);
    expect(datedRun.code).toBe(1);
    expect(datedRun.stderr).toMatch(
      /строка 2, столбец «дата выплаты»: в шаблоне регулярной выплаты дату выплаты не ставят/,
    );
    expect(
      await stack.client.schedule
        .getHandle(scheduleIdOf(name))
        .describe()
        .catch(() => 'none'),
    ).toBe('none');

    const create = await runCli(
      ['schedule', 'create', name, '--file', file, '--days', '20,5', '--at', '10:00'],
      preparer,
    );
    made.push(name);
    expect({ code: create.code, stderr: create.stderr }).toEqual({ code: 0, stderr: '' });
    expect(create.stdout).toMatch(
      new RegExp(
        `^расписание ${name}: 2 строки на 4 000,00 ₽ каждый период \\(5,20 числа в 10:00 МСК\\); следующий: \\d\\d\\.\\d\\d\\.\\d{4} 10:00 МСК; каждый период ждёт утверждения`,
      ),
    );
    const again = await runCli(['schedule', 'create', name, '--file', file, '--days', '5'], preparer);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`расписание ${name} уже есть`));
    const list = await runCli(['schedule', 'list'], preparer);
    expect(list.stdout).toContain(`${name}: 5,20 числа в 10:00 МСК; следующий период`);
    expect(list.stdout).toMatch(new RegExp(`${name}: .*подготовил preparer; запущено периодов: 0`));

    // Two periods simulated: the schedule's backfill runs them with their own nominal times.
    const handle = stack.client.schedule.getHandle(scheduleIdOf(name));
    await handle.backfill({
      start: new Date('2026-10-04T00:00:00Z'),
      end: new Date('2026-10-21T00:00:00Z'),
      overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    });
    const first = await periodResult(name, '2026-10-05');
    const second = await periodResult(name, '2026-10-20');
    const expected = (day: string) => batchWorkflowId(contentHash(periodFile(template, day)));
    expect(first).toEqual({
      status: 'started',
      period: '2026-10-05',
      batchId: expected('2026-10-05'),
      fileName: `${name}-2026-10-05.csv`,
    });
    expect(second).toEqual({
      status: 'started',
      period: '2026-10-20',
      batchId: expected('2026-10-20'),
      fileName: `${name}-2026-10-20.csv`,
    });

    // Both wait for a person, though this stack's policy approves submitted files without one.
    for (const { batchId } of [first, second]) {
      const progress = await waitForProgress(
        batchHandle(stack, batchId),
        (pr) => pr.phase === 'awaiting_approval',
        TIMEOUT,
      );
      expect(progress.finished).toBe(0);
      const status = await runCli(['batch', 'status', batchId], preparer);
      expect(status.stdout).toMatch(/ждёт утверждения/);
      expect(progress.approval).toMatchObject({
        required: true,
        because: 'a recurring payrun’s period always needs approval',
      });
    }
    const refs = (day: string) => [periodReference(`${p}-a`, day), periodReference(`${p}-b`, day)];
    expect([...ledgerPayouts(stack, [...refs('2026-10-05'), ...refs('2026-10-20')]).values()]).toEqual([
      0, 0, 0, 0,
    ]);
    // The watcher's service identity submitted them: it may never approve, and neither may the preparer... a person must.
    const byService = await runCli(['batch', 'approve', first.batchId], stack.cliEnv('watcher'));
    expect(byService.code).not.toBe(0);

    const approve = await runCli(['batch', 'approve', first.batchId], stack.cliEnv('approver'));
    expect({ code: approve.code, stderr: approve.stderr }).toEqual({ code: 0, stderr: '' });
    const done = await waitForProgress(
      batchHandle(stack, first.batchId),
      (pr) => pr.phase === 'done',
      TIMEOUT,
    );
    expect(done.counts.succeeded).toBe(2);
    expect((await batchHandle(stack, second.batchId).query(batchProgressQuery)).phase).toBe(
      'awaiting_approval',
    );
    expect([...ledgerPayouts(stack, [...refs('2026-10-05'), ...refs('2026-10-20')]).values()]).toEqual([
      1, 1, 0, 0,
    ]);

    // The same period again (a second backfill, an operator's hand): the same file, the same batch, no new money.
    const firstRun = (await runOf(name, '2026-10-05').describe()).runId;
    await handle.backfill({
      start: new Date('2026-10-05T06:00:00Z'),
      end: new Date('2026-10-05T08:00:00Z'),
      overlap: ScheduleOverlapPolicy.ALLOW_ALL,
    });
    await waitFor(
      async () => (await runOf(name, '2026-10-05').describe()).runId !== firstRun,
      TIMEOUT,
      'the period run again',
    );
    expect(await runOf(name, '2026-10-05').result()).toEqual({ ...first, status: 'already_submitted' });
    expect([...ledgerPayouts(stack, refs('2026-10-05')).values()]).toEqual([1, 1]);

    // Paused, it says so; deleted, it is gone, and the batch it submitted still waits for its approval.
    const pause = await runCli(['schedule', 'pause', name, '--by', 'tester', '--reason', 'отпуск'], preparer);
    expect(pause.stdout).toContain(`расписание ${name} приостановлено`);
    expect((await runCli(['schedule', 'list'], preparer)).stdout).toMatch(
      new RegExp(`${name}: .*; приостановлено;`),
    );
    expect((await handle.describe()).state.note).toBe('pause by tester: отпуск');
    const resume = await runCli(['schedule', 'resume', name, '--by', 'tester'], preparer);
    expect(resume.stdout).toMatch(
      new RegExp(`расписание ${name} снова работает; следующий период \\d\\d\\.\\d\\d\\.\\d{4} 10:00 МСК`),
    );
    const del = await runCli(['schedule', 'delete', name], preparer);
    expect(del.stdout).toContain(`расписание ${name} удалено`);
    const gone = await runCli(['schedule', 'pause', name], preparer);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`расписания ${name} нет`);
    expect((await batchHandle(stack, second.batchId).describe()).status.name).toBe('RUNNING');
    // Whatever happens to the schedule, the unapproved period never reached the bank.
    expect([...ledgerPayouts(stack, refs('2026-10-20')).values()]).toEqual([0, 0]);
  },
  TIMEOUT * 2,
);

test(
  'a period whose template is not the one its preparer signed submits nothing (a hand-started run, say)',
  async () => {
    const p = uniquePrefix();
    const name = `r${p.slice(1)}`;
    const template = batchCsv([{ reference: `${p}-a` }], { win1251: true });
    const file = join(paths.batchesDir, `${p}-template.csv`);
    writeFileSync(file, template);
    const create = await runCli(
      ['schedule', 'create', name, '--file', file, '--days', '5'],
      stack.cliEnv('preparer'),
    );
    made.push(name);
    expect(create.code).toBe(0);
    const action = (await stack.client.schedule.getHandle(scheduleIdOf(name)).describe()).action;
    const input = action.args?.[0] as RecurringPayrunInput;
    // An insider with Temporal's start right swaps the rows but keeps the preparer's signature.
    const forged = batchCsv([{ reference: `${p}-a`, amount: '99 000,00' }], { win1251: true });
    const run = await stack.client.workflow.start('recurringPayrunWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `${recurringWorkflowIdOf(name)}-forged`,
      args: [{ ...input, template: forged.toString('base64') }],
    });
    const failure = await run.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause?.cause as Error | undefined;
    expect(cause?.message).toBe('шаблон не совпадает с тем, что подписал подготовивший; период не отправлен');
    // Nothing was stored or started for the forged file.
    const forgedBatch = batchWorkflowId(
      contentHash(periodFile(forged, new Date().toISOString().slice(0, 10))),
    );
    expect(
      await stack.client.workflow
        .getHandle(forgedBatch)
        .describe()
        .then(
          () => 'started',
          () => 'none',
        ),
    ).toBe('none');
  },
  TIMEOUT,
);
