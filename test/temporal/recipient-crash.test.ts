import type { ChildProcess } from 'node:child_process';
import { recipientLedgerId } from '../../src/temporal/person-ids';
import { recipientQuery, refreshRecipientUpdate } from '../../workflows/recipient-ledger/contract';
import { freshInn } from '../harness/batches';
import { outcome, paidEntries, payoutRequest, requestsTo, startPayout, FAST } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';

// A worker process is SIGKILLed after the payout reserved its amount and while the bank holds its create
// request: the next worker reserves again (and finds the reservation) and creates with the same key. The
// ledger must count the amount once: a payout of exactly the rest of the cap still fits afterwards.
describe('a worker killed between reserving and creating', () => {
  let stack: Stack;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    stack = await startStack({
      inProcessWorker: false,
      policy: { ...NO_APPROVALS, self_employed_yearly_cap: '5 000,00' },
    });
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await stack?.stop();
  });

  it('leaves the ledger exact', async () => {
    const inn = freshInn(99_101);
    const person = (amount: number) => {
      const r = payoutRequest({ amount });
      return { ...r, recipient: { ...r.recipient, taxReference: inn } };
    };
    const env = { ...stack.workerEnv, BANK_REQUEST_TIMEOUT_MS: '5000' };
    worker = spawnWorkerProcess(env);
    // The bank holds the first create for a while after taking its idempotency key.
    stack.sandbox.setFaults({
      http: [{ kind: 'latency', paths: ['/api/v1/session/init/payout'], latencyMs: 4_000, times: 1 }],
    });
    const creates = await requestsTo(stack, 'session/init/payout');
    const request = person(150_000);
    const handle = await startPayout(stack, request, FAST);
    const ledger = stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, inn));
    await waitFor(
      async () =>
        (await ledger.query(recipientQuery).catch(() => undefined))?.openReservations === 1 &&
        (await requestsTo(stack, 'session/init/payout')) > creates,
      60_000,
      'the reservation made and the create sent',
    );
    await killHard(worker);
    worker = spawnWorkerProcess(env);

    expect((await outcome(handle)).state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    const year = (await ledger.executeUpdate(refreshRecipientUpdate)).years.at(-1)!;
    expect(year).toMatchObject({ paidKopecks: 150_000, reservedKopecks: 0 });
    expect(year.payouts.map((p) => p.reference)).toEqual([request.reference]);
    // Counted once: exactly the rest of the 5 000,00 ₽ cap fits, and not a kopeck more.
    expect((await outcome(await startPayout(stack, person(350_000), FAST))).state).toBe('succeeded');
    expect((await outcome(await startPayout(stack, person(1), FAST))).state).toBe('limit_exceeded');
  });
});
