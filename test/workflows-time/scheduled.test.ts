import type { BeforeCreating } from '../../activities/payout-runs';
import type { WakeRefusal } from '../../activities/scheduled';
import { moscowDate, payOnWakeMs } from '../../src/domain';
import { payoutRequest } from '../harness/payouts';
import {
  callsOf,
  skipUntil,
  startTimeSkipping,
  withStubWorker,
  type TimeSkipping,
} from '../harness/time-skipping';
import { workTimeout } from '../harness/budget';
import { FakeBank } from './fake-bank';
import { randomBytes } from 'node:crypto';
import {
  batchProgressQuery,
  cancelPayoutUpdate,
  payoutWorkflowId,
  type BatchChunkRow,
  payoutStatusQuery,
  type PayoutAuthorization,
  type TaxpayerVerdict,
} from './imports';
import { ALLOWING_VERDICT, finalStatus, payoutStubs, startPayout, untilState } from './payout-stubs';

// Scheduled rows (issue 42, docs/batches.md "Scheduled rows"): a payout with a pay_on date reserves its
// place, sleeps until 00:00 Moscow time of that day, then checks again and pays, or ends unpaid with why.

const DAY = 86_400_000;
/** Three rows' or six rows' days skipped through, a minute at a time near each wake. */
const LONG = workTimeout({ units: 6, perUnitMs: 20_000, floorMs: 120_000 });

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

/**
 * Skips to a minute before the row's wake, then a minute at a time until it has ended: awaiting result()
 * would let the server skip past later rows' timers too, and the test could not see them still asleep.
 */
async function wakeAndEnd(h: Handle, payOn: string, bank: FakeBank) {
  const before = payOnWakeMs(payOn) - 60_000 - (await ts.env.currentTimeMs());
  if (before > 0) await ts.env.sleep(before);
  const asleep = await h.query(payoutStatusQuery);
  const sessionBefore = bank.sessionOf(asleep.reference);
  const ended = async () => (await h.query(payoutStatusQuery)).timestamps.finished !== undefined;
  await skipUntil(ts, ended, `payout ${h.workflowId} ended`, 60_000);
  // Read by query: result() would unlock time, and the server skip to the next row's day meanwhile.
  return { asleep, sessionBefore, status: await h.query(payoutStatusQuery) };
}
type Handle = Awaited<ReturnType<typeof startPayout>>;

/** A Moscow day `days` after the server's now. */
const dayAhead = async (days: number) => moscowDate((await ts.env.currentTimeMs()) + days * DAY);

/** What the worker answers, changeable while the rows sleep: the look-up's verdict and authorization, the wake checks. */
function world() {
  const w = {
    verdict: ALLOWING_VERDICT as TaxpayerVerdict,
    authorization: { kind: 'not_needed', because: 'a time-skipping test' } as PayoutAuthorization,
    wake: new Map<string, WakeRefusal>(),
    reserved: [] as string[],
  };
  const bank = new FakeBank();
  const base = payoutStubs(bank, {});
  const stubs = {
    ...base,
    taxpayerVerdict: async () => w.verdict,
    beforeCreating: async (input: Parameters<NonNullable<typeof base.beforeCreating>>[0]) => {
      const found: BeforeCreating = {
        earlier: [],
        authorization: w.authorization,
        ...(input.taxpayer ? { verdict: w.verdict } : {}),
        ...(input.authorize && w.authorization.kind !== 'refused'
          ? { reservation: { ok: true as const, year: 2026 } }
          : {}),
      };
      if (input.authorize && !input.createIfClear && !input.taxpayer)
        w.reserved.push(input.authorize.request.reference);
      const create = input.createIfClear;
      const refuses = w.verdict.isProfessionalIncomeTaxpayer === false || !w.verdict.isLinked;
      if (!create || w.authorization.kind === 'refused') return found;
      if (create.request.selfEmployed && refuses) return found;
      return { ...found, created: bank.create(create) };
    },
    wakeChecks: async ({ request }: { request: { reference: string } }) => w.wake.get(request.reference),
  };
  return { w, bank, stubs };
}

test(
  'rows on three dates each pay at 00:00 Moscow time of their date, and none before',
  async () => {
    const { w, bank, stubs } = world();
    await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
      const dates = [await dayAhead(2), await dayAhead(5), await dayAhead(9)];
      const requests = dates.map((payOn) => payoutRequest({ selfEmployed: true, payOn }));
      const handles = await Promise.all(requests.map((request) => startPayout(ts, taskQueue, { request })));
      for (const h of handles) await untilState(ts, h, 'scheduled', 1_000);
      // Each reserved its place before it slept; nothing reached the bank.
      expect(w.reserved.sort()).toEqual(requests.map((r) => r.reference).sort());
      expect(bank.sessions.size).toBe(0);

      for (let i = 0; i < 3; i++) {
        const { asleep, sessionBefore, status } = await wakeAndEnd(handles[i]!, dates[i]!, bank);
        expect(asleep.state).toBe('scheduled'); // a minute before its day
        expect(sessionBefore).toBeUndefined();
        expect(status.state).toBe('succeeded');
        const wake = payOnWakeMs(dates[i]!);
        expect(status.timestamps.scheduledFor).toBe(new Date(wake).toISOString());
        const created = Date.parse(status.timestamps.sessionCreated!);
        expect(created).toBeGreaterThanOrEqual(wake);
        expect(created).toBeLessThan(wake + 3_600_000);
        // The later dates still sleep, unknown to the bank.
        for (const later of handles.slice(i + 1))
          expect((await later.query(payoutStatusQuery)).state).toBe('scheduled');
        expect(bank.sessions.size).toBe(i + 1);
        expect(bank.sessionOf(requests[i]!.reference)).toBeDefined();
      }
      expect(callsOf(calls, 'wakeChecks')).toHaveLength(3);
      expect(callsOf(calls, 'confirmSession')).toHaveLength(3);
    });
  },
  LONG,
);

test('what changed while they slept ends each row unpaid with its reason, before any session', async () => {
  const { w, bank, stubs } = world();
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const [lostStatus, revoked, overCap, stopListed] = [1, 2, 3, 4].map(() =>
      payoutRequest({ selfEmployed: true }),
    );
    // Each alone, so the world can change for it while it sleeps.
    const one = async (
      request: typeof lostStatus,
      change: () => void,
      undo: () => void,
    ): Promise<Awaited<ReturnType<typeof finalStatus>>> => {
      request!.payOn = await dayAhead(3); // three days after the one before it ended
      const h = await startPayout(ts, taskQueue, { request: request! });
      await untilState(ts, h, 'scheduled', 1_000);
      change();
      try {
        return (await wakeAndEnd(h, request!.payOn, bank)).status;
      } finally {
        undo();
      }
    };
    const refusing: TaxpayerVerdict = { ...ALLOWING_VERDICT, isProfessionalIncomeTaxpayer: false };
    const lost = await one(
      lostStatus,
      () => (w.verdict = refusing),
      () => (w.verdict = ALLOWING_VERDICT),
    );
    expect([lost.state, lost.failure?.code]).toEqual(['rejected', 'not_self_employed']);

    const allowed = w.authorization;
    const notApproved = await one(
      revoked,
      () =>
        (w.authorization = {
          kind: 'refused',
          code: 'not_approved',
          reason: 'batch x is not approved (0 of 1 approvals; approver anna was revoked)',
        }),
      () => (w.authorization = allowed),
    );
    expect([notApproved.state, notApproved.failure?.code]).toEqual(['rejected', 'not_approved']);
    expect(notApproved.failure?.reason).toContain('revoked');

    const capReason =
      '1 500,00 ₽ would pass the self-employed income cap for 2026, 2 300 000,00 ₽: 1 000,00 ₽ left; nothing was sent to the bank';
    const cap = await one(
      overCap,
      () =>
        w.wake.set(overCap!.reference, {
          state: 'limit_exceeded',
          code: 'limit_exceeded',
          reason: capReason,
        }),
      () => undefined,
    );
    expect([cap.state, cap.failure?.reason]).toEqual(['limit_exceeded', capReason]);

    const stop = await one(
      stopListed,
      () =>
        w.wake.set(stopListed!.reference, {
          state: 'rejected',
          code: 'stop_list',
          reason: 'the tax number is on the stop-list',
        }),
      () => undefined,
    );
    expect([stop.state, stop.failure?.code]).toEqual(['rejected', 'stop_list']);

    for (const r of [lostStatus, revoked, overCap, stopListed])
      expect(bank.sessionOf(r!.reference)).toBeUndefined();
    expect(callsOf(calls, 'createPayoutSession')).toHaveLength(0);
  });
});

test('a row cancelled while it sleeps ends at once, never wakes and never reaches the bank', async () => {
  const { bank, stubs } = world();
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const request = payoutRequest({ selfEmployed: false, payOn: await dayAhead(20) });
    const h = await startPayout(ts, taskQueue, { request });
    await untilState(ts, h, 'scheduled', 1_000);
    const before = await ts.env.currentTimeMs();
    expect(
      await h.executeUpdate(cancelPayoutUpdate, { args: [{ by: 'oncall', reason: 'not due' }] }),
    ).toMatch(/^cancel requested/);
    const status = await finalStatus(h);
    expect([status.state, status.failure?.code]).toEqual(['cancelled', 'cancelled_by_operator']);
    expect(Date.parse(status.timestamps.finished!)).toBeLessThan(before + DAY);
    expect(callsOf(calls, 'wakeChecks')).toHaveLength(0);
    expect(bank.sessions.size).toBe(0);
  });
});

test('a refused reservation ends the row at once, limit_exceeded, without sleeping', async () => {
  const { stubs } = world();
  const refused = {
    ...stubs,
    beforeCreating: async (): Promise<BeforeCreating> => ({
      earlier: [],
      authorization: { kind: 'batch', batchId: 'batch-0000000000000000' },
      reservation: {
        ok: false,
        limit: 'yearly_cap',
        limitKopecks: 100,
        headroomKopecks: 0,
        year: 2026,
        reason: 'would pass the cap',
      },
    }),
  };
  await withStubWorker(ts, refused, async ({ taskQueue }) => {
    const request = payoutRequest({ selfEmployed: true, payOn: await dayAhead(30) });
    const status = await finalStatus(await startPayout(ts, taskQueue, { request }));
    expect([status.state, status.failure?.reason]).toEqual(['limit_exceeded', 'would pass the cap']);
    expect(status.timestamps.scheduledFor).toBeUndefined();
  });
});

test(
  'a batch’s sleeping rows hold no place in its window, and rows waking together keep to its limit',
  async () => {
    const { bank, stubs } = world();
    const payOn = await dayAhead(4);
    const batchId = `batch-${randomBytes(8).toString('hex')}`;
    const rows: BatchChunkRow[] = Array.from({ length: 6 }, (_, i) => ({
      row: i + 2,
      request: payoutRequest({ selfEmployed: false, amount: 10_000 + i, payOn }),
    }));
    const meta = {
      fileName: 'payouts.csv',
      fileSha256: 'a'.repeat(64),
      rowCount: rows.length,
      invalidRows: 0,
      totalKopecks: rows.reduce((sum, r) => sum + r.request.amount, 0),
      chunkCount: 1,
    };
    // The most sessions open at once (each counted once, however often a look-up is retried): what the
    // window lets through when the rows wake.
    const open = new Set<string>();
    let mostOpen = 0;
    const onRead = bank.onRead;
    bank.onRead = (s) => {
      void onRead(s); // the default bank: synchronous
      if (s.stage === 'succeeded') open.delete(s.id);
    };
    const batchStubs = {
      ...stubs,
      beforeCreating: async (input: Parameters<NonNullable<typeof stubs.beforeCreating>>[0]) => {
        const found = await stubs.beforeCreating(input);
        if (found.created && bank.sessions.get(found.created.id)?.stage !== 'succeeded') {
          open.add(found.created.id);
          mostOpen = Math.max(mostOpen, open.size);
        }
        return found;
      },
      openBatch: async () => meta,
      authorizeBatch: async () => ({
        required: false,
        needed: 1,
        because: 'a time-skipping test',
        approvedBy: [],
        refused: [],
        satisfied: true,
        policy: { version: 'time-skipping-test', people: [], rules: {} as never },
      }),
      loadBatchChunk: async () => rows,
      recordBatchResults: async () => undefined,
      finishBatch: async () => ({ reportPath: 'report.csv', summaryPath: 'summary.txt', summary: 'done' }),
      checkDeposit: async () => ({ balanceKopecks: 1e12 }),
    };
    await withStubWorker(ts, batchStubs, async ({ taskQueue }) => {
      const batch = await ts.client.workflow.start('batchWorkflow', {
        taskQueue,
        workflowId: batchId,
        args: [{ batchId, options: { maxInFlight: 2, checkFunds: false } }],
      });
      const payouts = rows.map((r) => ts.client.workflow.getHandle(payoutWorkflowId(r.request.reference)));
      // All six asleep at once under a limit of two: none holds a place while it sleeps.
      const allAsleep = async () => {
        const states = await Promise.all(
          payouts.map((p) =>
            p.query(payoutStatusQuery).then(
              (s) => s.state,
              () => 'not started',
            ),
          ),
        );
        return states.every((s) => s === 'scheduled');
      };
      await skipUntil(ts, allAsleep, 'six scheduled rows asleep', 1_000);
      expect(await batch.query(batchProgressQuery)).toMatchObject({ inFlight: 6, scheduled: 6 });
      expect(bank.sessions.size).toBe(0);

      await ts.env.sleep(payOnWakeMs(payOn) - (await ts.env.currentTimeMs()) + 1_000);
      const done = async () => (await batch.query(batchProgressQuery)).phase === 'done';
      await skipUntil(ts, done, 'the batch done', 60_000);
      const progress = await batch.query(batchProgressQuery);
      expect(progress.counts.succeeded).toBe(6);
      expect(progress.scheduled).toBe(0);
      expect(bank.sessions.size).toBe(6);
      expect(mostOpen).toBeGreaterThan(0);
      expect(mostOpen).toBeLessThanOrEqual(2);
    });
  },
  LONG,
);
