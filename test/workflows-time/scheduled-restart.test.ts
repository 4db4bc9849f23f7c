import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { WorkerOptions } from '@temporalio/worker';
import { createBankActivities } from '../../activities/bank';
import type { BeforeCreating } from '../../activities/payout-runs';
import { BankClient } from '../../src/bank';
import { moscowDate, payOnWakeMs, type PayoutRequest } from '../../src/domain';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { createPayrunWorker } from '../../src/worker/create';
import { workTimeout } from '../harness/budget';
import { payoutRequest } from '../harness/payouts';
import { TEST_PAYER } from '../harness/stack';
import {
  bundle,
  callsOf,
  recordCalls,
  skipUntil,
  startTimeSkipping,
  type StubActivities,
  type StubCall,
  type TimeSkipping,
} from '../harness/time-skipping';
import { payoutStatusQuery, payoutWorkflowId, type PayoutAuthorization } from './imports';
import { ALLOWING_VERDICT, startPayout, untilState } from './payout-stubs';

// Issue 42's bar (docs/batches.md "Scheduled rows"): "a worker restart while rows sleep loses none and pays
// none twice". Rows sleep on the server's durable timer; their worker is stopped and a new one, sharing
// nothing with it but the bank, serves the same task queue. The bank is the real sandbox (src/sandbox) over
// HTTP, called by the real bank activities (activities/bank.ts over src/bank's signed client): its ledger
// says what was paid. Only what is not the bank is stubbed (approval not needed, verdict allowing, no
// wake refusal), as in scheduled.test.ts.
//
// The first worker keeps no workflow cache. A caching worker makes the server send each workflow's next
// task, and every query, to that worker's own (sticky) queue; a real server gives up on it when the worker
// says it is shutting down or takes too long, but the Java test server does neither (no ShutdownWorker,
// no schedule-to-start timeout for a sticky task not yet started): after a caching first worker stops, the
// rows' timers fire, their tasks wait on the gone worker's queue for ever, and time skipping stops. A first
// worker without a cache leaves the rows as a real server leaves them after a restart: on the task queue,
// for whoever polls it next, to be rebuilt from their histories. Its rows are started one at a time: with
// no cache, Core times out a workflow task while several runs wait on local activities, and runs them again.

const DAY = 86_400_000;
const PROJECT = 'payrun-time-skipping';
/** Five rows and two workers, two dates skipped through a minute at a time near each wake. */
const LONG = workTimeout({ units: 5, perUnitMs: 30_000, floorMs: 150_000 });

const partner = generateKeyPairSync('rsa', { modulusLength: 2048 });
const partnerPrivatePem = partner.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let ts: TimeSkipping;
let sandbox: RunningSandbox;
beforeAll(async () => {
  ts = await startTimeSkipping();
  sandbox = await startSandbox({
    projects: [
      { id: PROJECT, publicKeyPem: partner.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    ],
    // No ingress here: the payouts learn the bank's news by polling session/status. The sandbox's clock is
    // real time while the workflows' is skipped: its sessions are ready and finished as soon as asked.
    optionalWebhooks: true,
    timings: { readyToConfirmMs: 0, paymentFinishedMs: 0 },
  });
});
afterAll(async () => {
  await ts?.teardown();
  await sandbox?.close();
});

/**
 * What one worker process holds: its own bank client (its own keep-alive sockets) and activities over the
 * sandbox, its own record of calls and reservations. Nothing of it outlives the worker but the bank.
 */
function workerProcess(taskQueue: string) {
  const bank = new BankClient({
    baseUrl: sandbox.url,
    project: PROJECT,
    privateKeyPem: partnerPrivatePem,
    apiVersion: 1,
  });
  const real = createBankActivities({ bank, payer: TEST_PAYER, client: ts.reader, taskQueue });
  const authorization: PayoutAuthorization = { kind: 'not_needed', because: 'a time-skipping test' };
  /** References whose place was reserved before they slept (the look-up without a session). */
  const reserved: string[] = [];
  const stubs: StubActivities = {
    createPayoutSession: real.createPayoutSession,
    getSession: real.getSession,
    confirmSession: real.confirmSession,
    cancelSession: real.cancelSession,
    taxpayerVerdict: async () => ALLOWING_VERDICT,
    wakeChecks: async () => undefined,
    // The worker's look-up, as the real one answers it with no earlier run: the session is the sandbox's.
    beforeCreating: async (input): Promise<BeforeCreating> => {
      if (input.authorize && !input.createIfClear && !input.taxpayer)
        reserved.push(input.authorize.request.reference);
      const found: BeforeCreating = {
        earlier: [],
        authorization,
        ...(input.taxpayer ? { verdict: ALLOWING_VERDICT } : {}),
        ...(input.authorize ? { reservation: { ok: true as const, year: 2026 } } : {}),
      };
      return input.createIfClear
        ? { ...found, created: await real.createPayoutSession(input.createIfClear) }
        : found;
    },
  };
  return { bank, stubs, reserved };
}

/**
 * A payrun worker (the real bundle and converter) on `taskQueue`, as withStubWorker starts one but on a
 * queue the test names, so a second one can take it over; every stub call is recorded in `calls`.
 */
async function startWorker(taskQueue: string, stubs: StubActivities, overrides: Partial<WorkerOptions> = {}) {
  const { recorded, calls } = recordCalls(stubs);
  const worker = await createPayrunWorker({
    connection: ts.env.nativeConnection,
    setup: ts.setup,
    taskQueue,
    activities: recorded,
    workflowBundle: await bundle(),
    overrides,
  });
  const running = worker.run();
  let failure: unknown;
  running.catch((err: unknown) => (failure = err));
  const stop = async () => {
    ts.stopWorkers.delete(stop);
    worker.shutdown();
    await running;
  };
  ts.stopWorkers.add(stop);
  return { worker, calls, stop, failure: () => failure };
}

/** Every session the sandbox holds for a payout reference, and the payouts its ledger executed for it. */
const sessionsAtBank = (reference: string) =>
  Object.values(sandbox.sandbox.state.sessions).filter((s) => JSON.stringify(s).includes(reference));
const paidAtBank = (reference: string) =>
  sandbox.ledger().filter((e) => e.kind === 'payout' && e.recipient_reference === reference);
/** The confirms the sandbox answered, on either API version. */
const confirmsAtBank = () =>
  Object.entries(sandbox.sandbox.state.requestCounts)
    .filter(([path]) => /^POST \/api\/v\d\/session\/confirm$/.test(path))
    .reduce((sum, [, n]) => sum + n, 0);

/** The reference of the sandbox session a recorded bank call names. */
const referenceOfCall = (call: StubCall) => {
  const { sessionId } = call.input as { sessionId: string };
  const meta = sandbox.session(sessionId)?.metadata as { payrun?: { reference?: string } } | undefined;
  return meta?.payrun?.reference;
};

/** The workers' identities, as each workflow task's completion in history names them. */
const [BEFORE, AFTER] = ['payrun-before-restart', 'payrun-after-restart'];

/** Who completed a payout's latest workflow task. */
async function lastTaskBy(r: PayoutRequest): Promise<string | undefined> {
  const { events } = await ts.reader.workflow.getHandle(payoutWorkflowId(r.reference)).fetchHistory();
  const done = (events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes);
  return done.at(-1)?.workflowTaskCompletedEventAttributes?.identity ?? undefined;
}

test(
  'a worker replaced while rows sleep: each row pays once at its date, the row paid before is not paid again',
  async () => {
    const taskQueue = `ts-${randomUUID()}`;
    const now = await ts.env.currentTimeMs();
    const [early, late] = [moscowDate(now + 2 * DAY), moscowDate(now + 5 * DAY)];
    const dated = (payOn: string, selfEmployed: boolean, amount: number) =>
      payoutRequest({ payOn, selfEmployed, amount });
    const byDate: Record<string, PayoutRequest[]> = {
      [early]: [dated(early, true, 110_000), dated(early, false, 120_000)],
      [late]: [dated(late, true, 130_000), dated(late, false, 140_000)],
    };
    const sleepers = [...byDate[early]!, ...byDate[late]!];
    const payNow = payoutRequest({ selfEmployed: true, amount: 150_000 });
    const all = [...sleepers, payNow];

    // The first worker: the dated rows reserve their place and sleep, the last one pays now.
    const first = workerProcess(taskQueue);
    const before = await startWorker(taskQueue, first.stubs, {
      identity: BEFORE,
      maxCachedWorkflows: 0,
    });
    const handles = new Map<string, Awaited<ReturnType<typeof startPayout>>>();
    const handle = (r: PayoutRequest) => handles.get(r.reference)!;
    for (const r of sleepers) {
      handles.set(r.reference, await startPayout(ts, taskQueue, { request: r }));
      await untilState(ts, handle(r), 'scheduled', 1_000);
    }
    handles.set(payNow.reference, await startPayout(ts, taskQueue, { request: payNow }));
    await untilState(ts, handle(payNow), 'succeeded', 60_000);
    expect(first.reserved.sort()).toEqual(sleepers.map((r) => r.reference).sort());
    expect(paidAtBank(payNow.reference)).toHaveLength(1);
    for (const r of sleepers) expect(sessionsAtBank(r.reference)).toHaveLength(0);
    expect(confirmsAtBank()).toBe(1);

    // The restart: the first worker stops (its stubs and bank client with it) and a new one, whose stubs
    // share nothing with the first's but the bank, takes the same task queue.
    await before.stop();
    await first.bank.close();
    expect(before.worker.getState()).toBe('STOPPED');
    expect(before.failure()).toBeUndefined();
    const second = workerProcess(taskQueue);
    const after = await startWorker(taskQueue, second.stubs, { identity: AFTER });
    try {
      // Only the new worker can answer now: it rebuilt each row from its history, asleep with its wake time.
      for (const r of sleepers) {
        const status = await handle(r).query(payoutStatusQuery);
        expect([r.reference, status.state]).toEqual([r.reference, 'scheduled']);
        expect(status.timestamps.scheduledFor).toBe(new Date(payOnWakeMs(r.payOn!)).toISOString());
      }
      // Replaying called nothing again: no second reservation, no bank call.
      expect(after.calls).toEqual([]);

      for (const payOn of [early, late]) {
        const wake = payOnWakeMs(payOn);
        const rows = byDate[payOn]!;
        // A minute before its day each row still sleeps, unknown to the bank (time stands still meanwhile).
        await ts.env.sleep(wake - 60_000 - (await ts.env.currentTimeMs()));
        for (const r of rows) {
          expect((await handle(r).query(payoutStatusQuery)).state).toBe('scheduled');
          expect(sessionsAtBank(r.reference)).toHaveLength(0);
        }
        const ended = async () => {
          const states = await Promise.all(rows.map((r) => handle(r).query(payoutStatusQuery)));
          return states.every((s) => s.timestamps.finished !== undefined);
        };
        await skipUntil(ts, ended, `the rows of ${payOn} ended`, 60_000);
        for (const r of rows) {
          const status = await handle(r).query(payoutStatusQuery);
          expect([r.reference, status.state]).toEqual([r.reference, 'succeeded']);
          expect(Date.parse(status.timestamps.sessionCreated!)).toBeGreaterThanOrEqual(wake);
          expect(paidAtBank(r.reference)).toEqual([expect.objectContaining({ amount: r.amount })]);
        }
        // The later date's rows still sleep, unknown to the bank.
        for (const r of sleepers.filter((s) => s.payOn! > payOn)) {
          expect((await handle(r).query(payoutStatusQuery)).state).toBe('scheduled');
          expect(sessionsAtBank(r.reference)).toHaveLength(0);
        }
      }
      // Each sleeping row's tasks since the restart were the new worker's.
      for (const r of sleepers) expect([r.reference, await lastTaskBy(r)]).toEqual([r.reference, AFTER]);
      expect(after.failure()).toBeUndefined();
    } finally {
      await after.stop();
      await second.bank.close();
    }

    // The row paid before the restart ended then, under the first worker, and nothing ran it again.
    expect((await handle(payNow).describe()).status.name).toBe('COMPLETED');
    expect(await lastTaskBy(payNow)).toBe(BEFORE);

    // The bank's own account: one session and one executed payout per row, and one confirm per row (as
    // many confirms as rows, and each row's session confirmed).
    for (const r of all) {
      const sessions = sessionsAtBank(r.reference);
      expect([r.reference, sessions.length]).toEqual([r.reference, 1]);
      expect([r.reference, sessions[0]!.actions?.confirm]).toEqual([r.reference, expect.any(String)]);
      expect([r.reference, paidAtBank(r.reference).length]).toEqual([r.reference, 1]);
    }
    expect(sandbox.ledger().filter((e) => e.kind === 'payout')).toHaveLength(all.length);
    expect(confirmsAtBank()).toBe(all.length);
    // And each worker's: the first confirmed only the row it paid, the second each sleeper once and that row never.
    const confirmed = (calls: StubCall[]) => callsOf(calls, 'confirmSession').map(referenceOfCall).sort();
    expect(confirmed(before.calls)).toEqual([payNow.reference]);
    expect(confirmed(after.calls)).toEqual(sleepers.map((r) => r.reference).sort());
    // The new worker reserved nothing again: the places held before it came are the ones the rows used.
    expect(second.reserved).toEqual([]);
  },
  LONG,
);
