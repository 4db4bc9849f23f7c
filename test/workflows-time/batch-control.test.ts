import { createPrivateKey, randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { generateSigningKey, signerFromKey, signStatement } from '../../src/policy/keys';
import { payoutRequest } from '../harness/payouts';
import {
  callsOf,
  skipUntil,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import {
  approveBatchUpdate,
  batchProgressQuery,
  cancelBatchUpdate,
  pauseBatchUpdate,
  resumeBatchUpdate,
  type BatchAuthorization,
  type BatchChunkRow,
  type BatchStatement,
  type BatchWorkflowInput,
  type PolicyView,
} from './imports';
import { payoutStubs } from './payout-stubs';

// A batch's operator commands and waits in workflow time (docs/batches.md): the deposit re-checked
// every minute until it covers the file, a pause that starts no payout for hours and a resume, a
// cancel while waiting for funds, and an approval refused once it is older than five minutes.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const NOT_NEEDED: Omit<BatchAuthorization, 'policy'> = {
  required: false,
  needed: 1,
  because: 'a time-skipping test',
  approvedBy: [],
  refused: [],
  satisfied: true,
};
const POLICY: PolicyView = { version: 'time-skipping-test', people: [], rules: {} as PolicyView['rules'] };

/** A file of `count` rows in one chunk, paid through the fake bank; `deposit` answers the funds check. */
function batchFile(count: number, deposit: () => Promise<number> = async () => 1e12) {
  const batchId = `batch-${randomBytes(8).toString('hex')}`;
  const rows: BatchChunkRow[] = Array.from({ length: count }, (_, i) => ({
    row: i + 2,
    request: payoutRequest({ selfEmployed: false, amount: 10_000 + i }),
  }));
  const meta = {
    fileName: 'payouts.csv',
    fileSha256: 'a'.repeat(64),
    rowCount: rows.length,
    invalidRows: 0,
    totalKopecks: rows.reduce((sum, r) => sum + r.request.amount, 0),
    chunkCount: 1,
  };
  const bank = new FakeBank();
  let auth: BatchAuthorization = { ...NOT_NEEDED, policy: POLICY };
  const stubs: StubActivities = {
    ...payoutStubs(bank, { authorization: { kind: 'batch', batchId } }),
    openBatch: async () => meta,
    authorizeBatch: async () => auth,
    loadBatchChunk: async () => rows,
    recordBatchResults: async () => undefined,
    finishBatch: async () => ({ reportPath: 'report.csv', summaryPath: 'summary.txt', summary: 'done' }),
    checkDeposit: async () => ({ balanceKopecks: await deposit() }),
  };
  const start = (taskQueue: string, options: BatchWorkflowInput['options'] = {}) =>
    ts.client.workflow.start('batchWorkflow', {
      taskQueue,
      workflowId: batchId,
      args: [{ batchId, options: { payout: { pollAfterMs: SECOND }, ...options } }],
    });
  const setAuth = (a: BatchAuthorization) => void (auth = a);
  return { batchId, rows, meta, bank, stubs, start, setAuth };
}

type Result = { counts: Record<string, number> };
const progressOf = (handle: WorkflowHandle) => handle.query(batchProgressQuery);

test('the deposit short: re-checked every minute, paying only once it covers the file', async () => {
  let startedAt = Infinity;
  const file = batchFile(2, async () =>
    (await ts.env.currentTimeMs()) - startedAt >= 5 * MINUTE ? 1e12 : 0,
  );
  await withStubWorker(ts, file.stubs, async ({ taskQueue, calls }) => {
    startedAt = await ts.env.currentTimeMs();
    const handle = await file.start(taskQueue, { checkFunds: true });
    await skipUntil(
      ts,
      async () => (await progressOf(handle)).phase === 'awaiting_funds',
      'awaiting funds',
      SECOND,
    );
    const result = (await handle.result()) as Result;

    expect(result.counts).toEqual({ succeeded: 2 });
    // Checked at 0, 1, 2, 3, 4 and 5 minutes: a minute apart, not more, not a busy loop.
    const checks = callsOf(calls, 'checkDeposit').length;
    expect(checks).toBeGreaterThanOrEqual(6);
    expect(checks).toBeLessThanOrEqual(7);
  });
});

test('paused for two hours: no payout starts meanwhile, the one in flight finishes; resumed, every row is paid', async () => {
  const file = batchFile(3);
  await withStubWorker(ts, file.stubs, async ({ taskQueue, calls }) => {
    const handle = await file.start(taskQueue, { checkFunds: false, maxInFlight: 1 });
    await skipUntil(
      ts,
      async () => (await progressOf(handle)).dispatched === 1,
      'the first row dispatched',
      SECOND,
    );
    expect(await handle.executeUpdate(pauseBatchUpdate, { args: [{ by: 'operator' }] })).toBe(
      'paused: no new payouts start; those in flight finish',
    );
    await ts.env.sleep(2 * HOUR);
    const paused = await progressOf(handle);
    expect(paused).toMatchObject({ phase: 'paused', dispatched: 1, finished: 1 });
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);

    expect(await handle.executeUpdate(resumeBatchUpdate, { args: [{ by: 'operator' }] })).toBe('resumed');
    const result = (await handle.result()) as Result;
    expect(result.counts).toEqual({ succeeded: 3 });
    const done = await progressOf(handle);
    expect(done.commands?.map((c) => [c.command, c.by])).toEqual([
      ['pause', 'operator'],
      ['resume', 'operator'],
    ]);
  });
});

test('cancelled while waiting for funds: nothing is paid, every row ends cancelled', async () => {
  const file = batchFile(3, async () => 0);
  await withStubWorker(ts, file.stubs, async ({ taskQueue, calls }) => {
    const handle = await file.start(taskQueue, { checkFunds: true });
    await skipUntil(
      ts,
      async () => (await progressOf(handle)).phase === 'awaiting_funds',
      'awaiting funds',
      SECOND,
    );
    await ts.env.sleep(10 * MINUTE);
    const answer = await handle.executeUpdate(cancelBatchUpdate, {
      args: [{ by: 'operator', reason: 'wrong file' }],
    });
    expect(answer).toMatch(/^cancelling/);
    const result = (await handle.result()) as Result;

    expect(result.counts).toEqual({ cancelled: 3 });
    expect(callsOf(calls, 'beforeCreating')).toHaveLength(0);
    expect(callsOf(calls, 'createPayoutSession')).toHaveLength(0);
    expect(callsOf(calls, 'finishBatch').map((c) => c.input)).toEqual([
      expect.objectContaining({ cancelled: true }),
    ]);
  });
});

test('awaiting approval: a statement signed more than five minutes of workflow time ago is refused; a fresh one pays', async () => {
  const { privateKeyPem, publicKey } = generateSigningKey();
  const policy: PolicyView = {
    version: 'time-skipping-test',
    people: [{ id: 'approver', roles: ['approver'], keys: [publicKey.slice('ed25519:'.length)] }],
    rules: {
      submittedNeedApproval: true,
      droppedNeedApproval: true,
      twoApproversAboveKopecks: null,
      handStartedApprovalAboveKopecks: 0,
      approvalExpiresAfterMs: 24 * HOUR,
    },
  };
  const signer = signerFromKey('approver', createPrivateKey(privateKeyPem));
  const file = batchFile(1);
  const waiting: BatchAuthorization = {
    ...NOT_NEEDED,
    required: true,
    satisfied: false,
    submitter: 'submitter',
    because: 'submitted files need approval',
    policy,
  };
  file.setAuth(waiting);
  const approved = { ...waiting, approvedBy: ['approver'], satisfied: true };
  file.stubs.recordBatchDecision = async () => ({ accepted: true, auth: approved });
  await withStubWorker(ts, file.stubs, async ({ taskQueue, calls }) => {
    const handle = await file.start(taskQueue, { checkFunds: false });
    await skipUntil(
      ts,
      async () => (await progressOf(handle)).phase === 'awaiting_approval',
      'awaiting approval',
      SECOND,
    );
    const approve = async () =>
      signStatement<BatchStatement>(
        signer,
        {
          kind: 'batch',
          decision: 'approve',
          batchId: file.batchId,
          fileSha256: file.meta.fileSha256,
          totalKopecks: file.meta.totalKopecks,
          rows: file.meta.rowCount,
        },
        new Date(await ts.env.currentTimeMs()),
      );
    const old = await approve();
    await ts.env.sleep(10 * MINUTE);
    const refused = await handle.executeUpdate(approveBatchUpdate, { args: [old] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(String((refused as Error).cause)).toContain('sign it again');
    expect(callsOf(calls, 'recordBatchDecision')).toHaveLength(0);
    expect((await progressOf(handle)).phase).toBe('awaiting_approval');

    file.setAuth(approved);
    const answer = await handle.executeUpdate(approveBatchUpdate, { args: [await approve()] });
    expect(answer).toBe('approved by approver (1 of 1): paying may start');
    expect(((await handle.result()) as Result).counts).toEqual({ succeeded: 1 });
  });
});
