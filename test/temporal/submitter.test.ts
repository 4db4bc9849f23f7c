import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { BatchPaths } from '../../src/batch/services/config';
import { payoutAuthorization } from '../../src/batch/services/authorize';
import { batchStoreFor } from '../../src/batch/store/open';
import { loadPolicy } from '../../src/policy/file';
import { InboxWatcher } from '../../src/batch/commands/watch';
import { contentHash } from '../../src/csv';
import { generateSigningKey, signerFromKeyFile } from '../../src/policy/keys';
import { NO_SUBMITTER } from '../../workflows/shared/approval';
import { batchWorkflowId } from '../../workflows/batch/contract';
import {
  approveBatchUpdate,
  batchProgressQuery,
  pauseBatchUpdate,
  resumeBatchUpdate,
} from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
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
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/**
 * Four eyes cannot be removed by removing evidence: a submit statement that does not verify starts
 * nothing, and a batch whose record lost its verified submit statement is approved by nobody and paid
 * by nothing until its file is resubmitted. Every case against the sandbox's ledger.
 */
describe('a submitter who cannot vanish', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack({ policy: {} }); // every file needs one approver who did not submit it
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  const paid = (references: string[]) => [...ledgerPayouts(stack, references).values()];
  const fileOf = (references: string[]) => batchCsv(references.map((reference) => ({ reference })));
  const refusal = async (update: Promise<unknown>): Promise<string> => {
    try {
      await update;
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return err.cause?.message ?? err.message;
      throw err;
    }
    throw new Error('the update was not refused');
  };
  const approve = async (batchId: string, person: string) =>
    batchHandle(stack, batchId).executeUpdate(approveBatchUpdate, {
      args: [await batchDecision(stack, paths.dataDir, batchId, person)],
    });
  const updatesInHistory = async (batchId: string) =>
    (await batchHandle(stack, batchId).fetchHistory()).events?.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
    ).length ?? 0;
  const statementsFile = async (batchId: string) =>
    join(
      paths.dataDir,
      'store',
      'files',
      (await batchStoreFor(paths.dataDir).readMeta(batchId)).contentHash,
      'statements.jsonl',
    );
  const workflowExists = async (batchId: string) => {
    try {
      await batchHandle(stack, batchId).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
  const submitted = async (references: string[], submitter = 'preparer') => {
    const r = await dropAndSubmit(stack, paths, `${references[0]}.csv`, fileOf(references), {
      submitter: stack.signer(submitter),
    });
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(
      handle,
      (p) => p.phase === 'awaiting_approval' && p.approval?.because !== undefined,
    );
    return { batchId: r.batchId, handle };
  };

  it('refuses, before anything starts, a submit signed by a key the policy does not list or by a person who may not submit', async () => {
    const references = [`${uniquePrefix()}-a`];
    const file = join(mkdtempSync(join(tmpdir(), 'payrun-submit-')), 'payouts.csv');
    writeFileSync(file, fileOf(references));
    const batchId = batchWorkflowId(contentHash(readFileSync(file)));
    const strangerKey = join(mkdtempSync(join(tmpdir(), 'payrun-key-')), 'stranger.pem');
    writeFileSync(strangerKey, generateSigningKey().privateKeyPem, { mode: 0o600 });

    const env = { PAYRUN_BATCHES_DIR: paths.batchesDir, PAYRUN_DATA_DIR: paths.dataDir };
    const wrongKey = await runCli(['batch', 'submit', file], {
      ...stack.cliEnv('preparer'),
      ...env,
      PAYRUN_KEY_FILE: strangerKey,
    });
    expect(wrongKey).toMatchObject({ code: 1 });
    expect(wrongKey.stderr).toMatch(
      /пакет не отправлен: подпись не проверяется ни одним ключом preparer из политики .*policy\.yaml/,
    );
    const viewer = await runCli(['batch', 'submit', file], {
      ...stack.cliEnv('viewer'),
      ...env,
      PAYRUN_LANG: 'en',
    });
    expect(viewer).toMatchObject({ code: 1 });
    expect(viewer.stderr).toMatch(/the batch was not submitted: viewer may not submit \(roles: viewer;/);
    const stranger = await runCli(['batch', 'submit', file], {
      ...stack.cliEnv('preparer'),
      ...env,
      PAYRUN_PERSON: 'mallory',
      PAYRUN_KEY_FILE: strangerKey,
    });
    expect(stranger.stderr).toMatch(/mallory нет среди людей политики/);

    // The watcher with a key that is not its own: the file stays in the inbox, nothing is stored or started.
    const watcher = new InboxWatcher(stack.client, {
      ...submitOptions(stack, paths),
      submitter: signerFromKeyFile('watcher', strangerKey),
      source: 'inbox',
    });
    const dropped = join(paths.batchesDir, 'inbox', 'dropped-by-stranger.csv');
    writeFileSync(dropped, fileOf(references));
    let events: Awaited<ReturnType<InboxWatcher['pollOnce']>> = [];
    await waitFor(async () => (events = await watcher.pollOnce()).some((e) => e.file === dropped));
    expect(events.find((e) => e.file === dropped)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/подпись не проверяется ни одним ключом watcher/),
    });
    expect(existsSync(dropped)).toBe(true);
    expect(await batchStoreFor(paths.dataDir).exists(batchId)).toBe(false);
    expect(await workflowExists(batchId)).toBe(false);
    expect(paid(references)).toEqual([0]);
  });

  it('a batch whose submitter record was deleted is approved by nobody until resubmitted, then pays exactly once', async () => {
    const references = [`${uniquePrefix()}-a`, `${uniquePrefix()}-b`];
    // Submitted by `both`, who may also approve (never their own batch).
    const { batchId, handle } = await submitted(references, 'both');
    const source = (await batchStoreFor(paths.dataDir).readMeta(batchId)).sourcePath;
    writeFileSync(await statementsFile(batchId), '');

    // The batch read its record before it was emptied: the worker judges it again and refuses.
    expect(await approve(batchId, 'approver')).toBe(`refused: ${NO_SUBMITTER}`);
    // Now the batch knows: the validator refuses, and nothing more reaches history.
    const accepted = await updatesInHistory(batchId);
    for (const person of ['approver', 'approver2', 'both'])
      expect(`${person}: ${await refusal(approve(batchId, person))}`).toBe(`${person}: ${NO_SUBMITTER}`);
    expect(await updatesInHistory(batchId)).toBe(accepted);

    // Restarted by hand (the attack that used to let the submitter approve alone): still nobody.
    await stack.client.workflow.start('batchWorkflow', {
      workflowId: batchId,
      taskQueue: stack.taskQueue,
      args: [{ batchId, options: { fundsRecheckMs: 500, payout: FAST_PAYOUTS } }],
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
    const waiting = await waitForProgress(
      handle,
      (p) => p.phase === 'awaiting_approval' && p.approval?.because !== undefined,
    );
    expect(waiting.approval).toMatchObject({ required: true, because: NO_SUBMITTER, approvedBy: [] });
    expect(waiting.approval?.submitter).toBeUndefined();
    for (const person of ['both', 'approver'])
      expect(await refusal(approve(batchId, person))).toBe(NO_SUBMITTER);
    for (const person of ['both', 'approver']) {
      const cli = await runCli(['batch', 'approve', batchId], stack.cliEnv(person));
      expect(`${person}: ${cli.code} ${cli.stderr}`).toMatch(
        new RegExp(
          `^${person}: 1 [\\s\\S]*в записи файла нет проверенного заявления об отправке: отправьте файл повторно`,
        ),
      );
    }
    expect(await updatesInHistory(batchId)).toBe(0);
    expect(paid(references)).toEqual([0, 0]);

    // The same file submitted again: a fresh verified statement, and the waiting batch judges again.
    const again = await runCli(['batch', 'submit', source], {
      ...stack.cliEnv('both'),
      PAYRUN_BATCHES_DIR: paths.batchesDir,
    });
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toMatch(new RegExp(`^${batchId}: отправлен повторно \\(both\\)`));
    await waitForProgress(handle, (p) => p.approval?.submitter === 'both');
    expect(await refusal(approve(batchId, 'both'))).toBe(
      'both submitted this batch: an approver must be someone else',
    );
    expect(await approve(batchId, 'approver')).toBe('approved by approver (1 of 1): paying may start');
    expect((await handle.result()).counts).toEqual({ succeeded: 2 });
    expect(paid(references)).toEqual([1, 1]);
  });

  it('a submitter whose submit line was emptied away still may not approve after a colleague resubmits', async () => {
    const references = [`${uniquePrefix()}-a`];
    const { batchId, handle } = await submitted(references, 'both');
    const source = (await batchStoreFor(paths.dataDir).readMeta(batchId)).sourcePath;
    writeFileSync(await statementsFile(batchId), '');
    // A colleague brings the same bytes again: the record now names only them, and the batch is nudged.
    const again = await runCli(['batch', 'submit', source], {
      ...stack.cliEnv('preparer'),
      PAYRUN_BATCHES_DIR: paths.batchesDir,
    });
    expect(again.stdout).toMatch(new RegExp(`^${batchId}: отправлен повторно \\(preparer\\)`));
    await waitForProgress(handle, (p) => p.approval?.submitter === 'preparer');

    // The batch remembers `both` submitted it: refused through the CLI and the client, nothing accepted.
    const accepted = await updatesInHistory(batchId);
    const cli = await runCli(['batch', 'approve', batchId], stack.cliEnv('both'));
    expect(`${cli.code} ${cli.stderr}`).toMatch(
      /^1 [\s\S]*both отправил\(а\) этот пакет: одобрить его должен другой человек/,
    );
    expect(await refusal(approve(batchId, 'both'))).toBe(
      'both submitted this batch: an approver must be someone else',
    );
    expect(await updatesInHistory(batchId)).toBe(accepted);
    expect((await handle.query(batchProgressQuery)).phase).toBe('awaiting_approval');
    expect(paid(references)).toEqual([0]);

    expect(await approve(batchId, 'approver')).toBe('approved by approver (1 of 1): paying may start');
    expect((await handle.result()).counts).toEqual({ succeeded: 1 });
    expect(paid(references)).toEqual([1]);
  });

  it('the record emptied after a genuine approval pays nothing more and says why', async () => {
    const references = [`${uniquePrefix()}-a`, `${uniquePrefix()}-b`];
    const { batchId, handle } = await submitted(references);
    // Paused, so the approval lets paying start and the batch itself starts no payout yet.
    await handle.executeUpdate(pauseBatchUpdate, { args: [{ by: 'test' }] });
    expect(await approve(batchId, 'approver')).toMatch(/paying may start/);
    await waitForProgress(handle, (p) => p.phase === 'paused');
    // The worker judges the approved, whole record once, as the batch's own first payout would have it
    // judged (this process is the stack's worker: the same judgement it keeps); only the batch starts rows.
    const [first] = await batchStoreFor(paths.dataDir).readChunk(batchId, 0);
    const policy = loadPolicy({ PAYRUN_POLICY_FILE: stack.people.file });
    expect(
      await payoutAuthorization(paths.dataDir, policy, {
        batchId,
        request: first!.request,
        startedBy: batchId,
      }),
    ).toEqual({ kind: 'batch', batchId });
    writeFileSync(await statementsFile(batchId), '');
    await handle.executeUpdate(resumeBatchUpdate, { args: [{ by: 'test' }] });

    await handle.result();
    const done = await handle.query(batchProgressQuery);
    const why = `batch ${batchId} is not approved (0 of 1 approvals; ${NO_SUBMITTER})`;
    expect(done.failures.map((f) => `${f.reference} ${f.code}: ${f.reason}`).sort()).toEqual(
      references.map((r) => `${r} not_approved: ${why}`).sort(),
    );
    expect(paid(references)).toEqual([0, 0]);
  });
});
