import type { ChildProcess } from 'node:child_process';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import { FAST, outcome, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_600S = underLoad(600_000);

// The worker process is SIGKILLed three times while 50 payouts are in flight. Temporal resumes
// every workflow on the restarted worker; the bank's ledger must still show exactly one payout each.
describe('worker crashes while payouts are in flight', () => {
  let stack: Stack;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    stack = await startStack({
      inProcessWorker: false,
      sandbox: { timings: { readyToConfirmMs: 1_500, paymentFinishedMs: 1_500 } },
    });
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await stack?.stop();
  });

  it(
    'pays every payout exactly once across three SIGKILLs',
    async () => {
      const env = { ...stack.workerEnv, BANK_REQUEST_TIMEOUT_MS: '5000' };
      worker = spawnWorkerProcess(env);
      const requests = Array.from({ length: Number(process.env.CRASH_PAYOUTS ?? 50) }, (_, i) =>
        payoutRequest({
          amount: 100_000 + i,
          method: {
            type: 'card',
            cardNumber: i % 10 === 0 ? TEST_CARDS.DECLINED_BY_ISSUER : TEST_CARDS.SUCCESS,
          },
        }),
      );
      const handles = await Promise.all(requests.map((r) => startPayout(stack, r, FAST)));

      for (let kill = 1; kill <= Number(process.env.CRASH_KILLS ?? 3); kill++) {
        await new Promise((r) => setTimeout(r, 2_500));
        await killHard(worker);
        worker = spawnWorkerProcess(env);
      }
      const statuses = await Promise.all(handles.map((h) => outcome(h)));

      const ledger = stack.sandbox.ledger().filter((e) => e.kind === 'payout');
      requests.forEach((req, i) => {
        const status = statuses[i]!;
        const declined =
          req.method.type === 'card' && req.method.cardNumber === TEST_CARDS.DECLINED_BY_ISSUER;
        expect({ ref: req.reference, state: status.state, failure: status.failure }).toEqual({
          ref: req.reference,
          state: declined ? 'failed' : 'succeeded',
          failure: declined ? expect.objectContaining({ code: 'declined_by_issuer_bank' }) : undefined,
        });
        const entries = ledger.filter((e) => e.session_id === status.bank.sessionId);
        expect({ ref: req.reference, paid: entries.length }).toEqual({
          ref: req.reference,
          paid: declined ? 0 : 1,
        });
      });
      expect(ledger).toHaveLength(45);
      expect(new Set(ledger.map((e) => e.session_id)).size).toBe(45);
    },
    TIMEOUT_600S,
  );
});
