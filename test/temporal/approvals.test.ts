import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { operatorShell, startTestCodecServer } from '../harness/codec';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { batchAudit } from '../../src/batch/commands/audit';
import { retryFailed } from '../../src/batch/commands/retry';
import { batchStoreFor } from '../../src/batch/store/open';
import { InboxWatcher } from '../../src/batch/commands/watch';
import { loadPolicy } from '../../src/policy/file';
import { writePolicy } from '../../src/policy/generate';
import { signerFromKey, signStatement } from '../../src/policy/keys';
import type { BatchStatement } from '../../workflows/shared/approval-contract';
import {
  approveBatchUpdate,
  batchProgressQuery,
  cancelBatchUpdate,
  rejectBatchUpdate,
} from '../../workflows/batch/contract';
import { payoutStatusQuery, approvePayoutUpdate } from '../../workflows/payout/contract';
import { batchDecision, payoutApproval } from '../harness/approvals';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  FAST_PAYOUTS,
  ledgerPayouts,
  submitOptions,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { recordHistoryIfAsked } from '../harness/replay';
import { settleAsWatcher } from '../harness/reports';
import type { BatchPaths } from '../../src/batch/services/config';

/**
 * Who may pay, tried at every door against the real server, each case checked against the sandbox's
 * ledger: the policy's defaults (every file and every hand-started payout needs a signed approval), two
 * approvers above 5 000,00 ₽ (a test batch's rows are 1 500,00 ₽ each).
 */
const RULES = { two_approvers_above: '5 000,00' };

describe('who may pay', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let codec: Awaited<ReturnType<typeof startTestCodecServer>>;
  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
    paths = batchTestPaths();
    codec = await startTestCodecServer();
  });
  afterAll(async () => {
    await codec?.close();
    await stack?.stop();
  });

  const submit = async (rows: number, submitter = 'preparer') => {
    const references = Array.from({ length: rows }, (_, i) => `${uniquePrefix()}-${i}`);
    const r = await dropAndSubmit(
      stack,
      paths,
      `${references[0]}.csv`,
      batchCsv(references.map((reference) => ({ reference }))),
      { submitter: stack.signer(submitter) },
    );
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(handle, (p) => p.phase === 'awaiting_approval' && p.rows === rows);
    return { batchId: r.batchId, references, handle };
  };
  const decide = async (
    batchId: string,
    person: string,
    decision: 'approve' | 'reject' = 'approve',
    reason?: string,
  ) =>
    batchHandle(stack, batchId).executeUpdate(
      decision === 'approve' ? approveBatchUpdate : rejectBatchUpdate,
      {
        args: [
          await batchDecision(stack, paths.dataDir, batchId, person, decision, reason ? { reason } : {}),
        ],
      },
    );
  /** Why an update was refused (its validator's words), or a failure when it was not refused. */
  const refusal = async (update: Promise<unknown>): Promise<string> => {
    try {
      await update;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return err.cause?.message ?? err.message;
      throw err;
    }
    throw new Error('the update was not refused');
  };
  const paid = (references: string[]) => [...ledgerPayouts(stack, references).values()];
  const updatesInHistory = async (batchId: string) =>
    (await batchHandle(stack, batchId).fetchHistory()).events?.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
    ).length ?? 0;
  const temporalCli = (args: string) => operatorShell(`temporal ${args}`, codec, true);

  it('a batch cancelled before approval and retried pays nothing; a rejected file pays only after a new approval', async () => {
    const { batchId, references, handle } = await submit(2);
    await handle.executeUpdate(cancelBatchUpdate, {
      args: [{ by: 'oncall', reason: 'not approved in time' }],
    });
    expect((await handle.result()).counts).toEqual({ cancelled: 2 });

    const options = { paths, taskQueue: stack.taskQueue, submitter: stack.signer('preparer') };
    const retry = await retryFailed(stack.client, batchId, {
      ...options,
      batchOptions: submitOptions(stack, paths).batchOptions,
    });
    const retryHandle = batchHandle(stack, retry.batchId);
    const waiting = await waitForProgress(retryHandle, (p) => p.phase === 'awaiting_approval');
    expect(waiting.approval).toMatchObject({ required: true, submitter: 'preparer', approvedBy: [] });
    expect(paid(references)).toEqual([0, 0]);
    // The first batch's approval would not have counted either: approvals are of one batch id.
    expect(await decide(retry.batchId, 'approver', 'reject', 'wrong month')).toMatch(
      /^rejected by approver: wrong month; this file is not paid by any batch until it is approved again$/,
    );
    expect((await retryHandle.result()).counts).toEqual({ cancelled: 2 });
    expect(paid(references)).toEqual([0, 0]);

    const again = await retryFailed(stack.client, retry.batchId, {
      ...options,
      batchOptions: submitOptions(stack, paths).batchOptions,
    });
    await expect(retryFailed(stack.client, retry.batchId, options)).rejects.toThrow(
      `уже повторён как ${again.batchId}`,
    );
    const againHandle = batchHandle(stack, again.batchId);
    const rejected = await waitForProgress(againHandle, (p) => p.phase === 'awaiting_approval');
    expect(rejected.approval?.rejected).toMatchObject({ by: 'approver', reason: 'wrong month' });
    // An approval dated before the rejection is outweighed by it.
    const stale = signStatement<BatchStatement>(
      stack.signer('approver2'),
      { ...(await batchDecision(stack, paths.dataDir, again.batchId, 'approver2')).statement },
      new Date(Date.parse(rejected.approval!.rejected!.at) - 60_000),
    );
    expect(await refusal(againHandle.executeUpdate(approveBatchUpdate, { args: [stale] }))).toMatch(
      /^given before approver rejected the file at /,
    );
    expect(paid(references)).toEqual([0, 0]);
    expect(await decide(again.batchId, 'approver2')).toBe('approved by approver2 (1 of 1): paying may start');
    expect((await againHandle.result()).counts).toEqual({ succeeded: 2 });
    expect(paid(references)).toEqual([1, 1]);
  });

  it('a batch restarted by hand without the requirement still waits for approval and pays nothing until it comes', async () => {
    const { batchId, references } = await submit(2);
    const restarted = await stack.client.workflow.start('batchWorkflow', {
      workflowId: batchId,
      taskQueue: stack.taskQueue,
      args: [{ batchId, options: { requireApproval: false, fundsRecheckMs: 500, payout: FAST_PAYOUTS } }],
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
    const handle = batchHandle(stack, batchId);
    const p = await waitForProgress(
      handle,
      (x) => x.phase === 'awaiting_approval' && x.rows === 2 && x.approval?.because !== undefined,
    );
    expect((await handle.describe()).runId).toBe(restarted.firstExecutionRunId);
    expect(p.approval).toMatchObject({
      required: true,
      because: 'the policy requires approval of submitted files',
    });
    expect(p.dispatched).toBe(0);
    expect(paid(references)).toEqual([0, 0]);
    expect(await decide(batchId, 'approver')).toMatch(/paying may start/);
    expect((await handle.result()).counts).toEqual({ succeeded: 2 });
    expect(paid(references)).toEqual([1, 1]);
  });

  it('refuses a self-approval, a forged key, a replayed approval, a viewer, the watcher and a typed name, leaving nothing in history', async () => {
    const own = await submit(2, 'both');
    const other = await submit(1);
    const subject = (await batchDecision(stack, paths.dataDir, own.batchId, 'approver')).statement;
    const { privateKey } = generateKeyPairSync('ed25519');
    const attempts: [string, unknown, RegExp][] = [
      [
        'self-approval',
        await batchDecision(stack, paths.dataDir, own.batchId, 'both'),
        /both submitted this batch: an approver must be someone else/,
      ],
      [
        'forged key',
        signStatement(signerFromKey('approver', privateKey), { ...subject }),
        /the signature is not approver’s/,
      ],
      [
        'replayed from another batch',
        await batchDecision(stack, paths.dataDir, other.batchId, 'approver'),
        /about another file/,
      ],
      [
        'a viewer',
        await batchDecision(stack, paths.dataDir, own.batchId, 'viewer'),
        /viewer may not approve/,
      ],
      [
        'the watcher',
        await batchDecision(stack, paths.dataDir, own.batchId, 'watcher'),
        /watcher may not approve/,
      ],
      ['a typed name', { by: 'approver' }, /a name is not an approval/],
      [
        'a tampered total',
        {
          ...(await batchDecision(stack, paths.dataDir, own.batchId, 'approver')),
          statement: { ...subject, totalKopecks: 1 },
        },
        /rows totalling 1 kopecks|signature is not/,
      ],
    ];
    for (const [what, arg, why] of attempts)
      expect(`${what}: ${await refusal(own.handle.executeUpdate('approveBatch', { args: [arg] }))}`).toMatch(
        why,
      );
    // From the Temporal CLI, naming a real approver: a signal is noted and ignored, an update refused.
    await temporalCli(
      `workflow signal --workflow-id ${own.batchId} --name approve --input '{"by":"approver"}'`,
    );
    await expect(
      temporalCli(
        `workflow update execute --workflow-id ${own.batchId} --name approveBatch --input '{"by":"approver"}'`,
      ),
    ).rejects.toThrow(/a name is not an approval/);
    const p = await waitForProgress(own.handle, (x) =>
      (x.notes ?? []).some((n) => n.includes('a name is not an approval')),
    );
    expect(p.phase).toBe('awaiting_approval');
    expect(p.approval?.approvedBy).toEqual([]);
    expect(await updatesInHistory(own.batchId)).toBe(0);
    expect(paid(own.references)).toEqual([0, 0]);

    const cli = await runCli(['batch', 'approve', own.batchId], {
      ...stack.cliEnv('both'),
      PAYRUN_DATA_DIR: paths.dataDir,
    });
    expect(cli).toMatchObject({ code: 1 });
    expect(cli.stderr).toMatch(/этот пакет отправили вы \(как both\): утвердить его должен кто-то другой/);
    const nobody = await runCli(['batch', 'approve', own.batchId], {
      ...stack.workerEnv,
      PAYRUN_DATA_DIR: paths.dataDir,
      XDG_CONFIG_HOME: paths.dataDir,
    });
    expect(nobody).toMatchObject({ code: 2 });
    expect(nobody.stderr).toMatch(/nobody is signed in/);

    expect(await decide(own.batchId, 'approver')).toMatch(/paying may start/);
    expect((await own.handle.result()).counts).toEqual({ succeeded: 2 });
    expect(paid(own.references)).toEqual([1, 1]);
    await other.handle.executeUpdate(cancelBatchUpdate, { args: [{ by: 'test' }] });
  });

  it('above the threshold one approval is not enough; two distinct approvers pay it exactly once, and the audit says who', async () => {
    const { batchId, references, handle } = await submit(4); // 6 000,00 ₽ > 5 000,00 ₽
    const env = { ...stack.cliEnv('approver'), PAYRUN_DATA_DIR: paths.dataDir };
    // The approver names the file they reviewed: other bytes are refused before anything is signed.
    const reviewed = (await batchStoreFor(paths.dataDir).readMeta(batchId)).sourcePath;
    const edited = join(paths.batchesDir, 'edited-copy.csv');
    writeFileSync(edited, Buffer.concat([readFileSync(reviewed), Buffer.from('\n')]));
    const changed = await runCli(['batch', 'approve', batchId, '--file', edited], env);
    expect(changed).toMatchObject({ code: 1 });
    expect(changed.stderr).toMatch(/файл изменился после отправки: .*edited-copy\.csv — не файл пакета /);
    const first = await runCli(
      ['batch', 'approve', batchId, '--file', reviewed, '--note', 'checked against the contract'],
      env,
    );
    expect(first).toMatchObject({
      code: 0,
      // The batch answers in English words; the command line says it in the language set (Russian by default).
      stdout: `${batchId}: одобрено (approver, 1 из 2): нужно одобрение ещё одного человека\n`,
    });
    expect(await waitForProgress(handle, (p) => p.approval?.approvedBy?.length === 1)).toMatchObject({
      phase: 'awaiting_approval',
      dispatched: 0,
    });
    expect(await refusal(decide(batchId, 'approver'))).toMatch(/approver has already approved this batch/);
    expect(paid(references)).toEqual([0, 0, 0, 0]);
    expect(await decide(batchId, 'approver2')).toBe('approved by approver2 (2 of 2): paying may start');
    expect((await handle.result()).counts).toEqual({ succeeded: 4 });
    expect(paid(references)).toEqual([1, 1, 1, 1]);

    const audit = await batchAudit(
      stack.client,
      paths.dataDir,
      loadPolicy({ PAYRUN_POLICY_FILE: stack.people.file }),
      batchId,
    );
    expect(audit.map((e) => `${e.what} ${e.by} ${e.counts}`)).toEqual([
      'submit preparer true',
      'approve approver true',
      'approve approver2 true',
      'paying approver, approver2 true',
    ]);
    expect(audit[1]).toMatchObject({
      name: 'Олег Утвердилов',
      evidence: expect.stringMatching(/^подпись проверена: собственный ключ approver/),
    });
    const cliAudit = await runCli(['batch', 'audit', batchId, '--json'], env);
    expect(JSON.parse(cliAudit.stdout)).toEqual(JSON.parse(JSON.stringify(audit)));
    await recordHistoryIfAsked('batch-approved', handle);
  });

  it('a dropped file waits for approval: the watcher submits it as a service that cannot approve', async () => {
    const references = [`${uniquePrefix()}-dropped`];
    const watcher = new InboxWatcher(stack.client, {
      ...submitOptions(stack, paths),
      submitter: stack.signer('watcher'),
      source: 'inbox',
    });
    await settleAsWatcher(paths); // earlier tests' finished files, so this poll's one event is the drop
    writeFileSync(
      join(paths.batchesDir, 'inbox', 'dropped.csv'),
      batchCsv(references.map((reference) => ({ reference }))),
    );
    let events: Awaited<ReturnType<InboxWatcher['pollOnce']>> = [];
    await waitFor(async () => (events = await watcher.pollOnce()).length > 0);
    expect(events[0]).toMatchObject({ kind: 'submitted' });
    const batchId = (events[0] as { batchId: string }).batchId;
    const handle = batchHandle(stack, batchId);
    const p = await waitForProgress(
      handle,
      (x) => x.phase === 'awaiting_approval' && x.approval?.because !== undefined,
    );
    expect(p.approval).toMatchObject({
      submitter: 'watcher',
      because: 'the policy requires approval of dropped files',
    });
    expect(await refusal(decide(batchId, 'watcher'))).toMatch(/watcher may not approve/);
    expect(paid(references)).toEqual([0]);
    expect(await decide(batchId, 'approver')).toMatch(/paying may start/);
    expect((await handle.result()).counts).toEqual({ succeeded: 1 });
    expect(paid(references)).toEqual([1]);
  });

  it("refuses a revoked person's approval, even in a batch that read the policy before the revocation", async () => {
    const { batchId, references, handle } = await submit(1);
    const revoked = TEST_PEOPLE.map((p) =>
      p.id === 'approver' ? { ...p, revoked: new Date().toISOString() } : p,
    );
    writePolicy(stack.people.dir, revoked, RULES);
    try {
      expect(await decide(batchId, 'approver')).toMatch(/^refused: approver was revoked at /);
      expect((await handle.query(batchProgressQuery)).phase).toBe('awaiting_approval');
      expect(paid(references)).toEqual([0]);
      expect(await decide(batchId, 'approver2')).toMatch(/paying may start/);
    } finally {
      writePolicy(stack.people.dir, TEST_PEOPLE, RULES);
    }
    expect((await handle.result()).counts).toEqual({ succeeded: 1 });
    expect(paid(references)).toEqual([1]);
  });

  it('a payout started by hand moves nothing unless it is a row of an approved file or approved itself', async () => {
    const { batchId, references, handle } = await submit(1);
    const row = (await batchStoreFor(paths.dataDir).readChunk(batchId, 0))[0]!.request;
    // The batch's own row, claiming the batch that nobody approved: refused before any bank call, since
    // only the batch starts its rows (it judges its approval's age, rejection and cancel as it does).
    const claimed = await startPayout(stack, row, FAST_PAYOUTS, batchId);
    const refused = await outcome(claimed);
    expect(refused).toMatchObject({ state: 'rejected', failure: { code: 'not_approved' } });
    expect(refused.failure?.reason).toBe(
      `a payout of batch ${batchId} pays only when that batch starts it; this one was started by hand`,
    );
    expect(refused.bank.sessionId).toBeUndefined();
    expect(paid(references)).toEqual([0]);
    await handle.executeUpdate(cancelBatchUpdate, { args: [{ by: 'test' }] });

    // Outside any batch: the policy asks its own approval, whatever its input says.
    const request = payoutRequest();
    const own = await startPayout(stack, request, { ...FAST_PAYOUTS, requireApproval: false });
    await waitFor(async () => (await own.query(payoutStatusQuery)).state === 'awaiting_approval');
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
    const forged = signStatement(signerFromKey('approver', generateKeyPairSync('ed25519').privateKey), {
      ...(await payoutApproval(stack, own, 'approver')).statement,
    });
    const otherRun = { ...(await payoutApproval(stack, own, 'approver')).statement, runId: randomUUID() };
    for (const [arg, why] of [
      [forged, /the signature is not approver’s/],
      [signStatement(stack.signer('approver'), otherRun), /not this run/],
      [await payoutApproval(stack, own, 'preparer'), /preparer may not approve/],
    ] as const)
      expect(await refusal(own.executeUpdate(approvePayoutUpdate, { args: [arg] }))).toMatch(why);
    expect(
      await own.executeUpdate(approvePayoutUpdate, { args: [await payoutApproval(stack, own, 'approver')] }),
    ).toBe('approved');
    expect(await outcome(own)).toMatchObject({
      state: 'succeeded',
      approval: { required: true, approvedBy: 'approver' },
    });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });
});
