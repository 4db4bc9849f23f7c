import { randomUUID } from 'node:crypto';
import type { BatchPaths } from '../../src/batch/services/config';
import { updateLedgerWithStart } from '../../activities/recipient';
import { recipientLedgerId } from '../../src/temporal/person-ids';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import {
  recipientQuery,
  reserveIncomeManyUpdate,
  reserveIncomeUpdate,
  type ReserveRequest,
} from '../../workflows/recipient-ledger/contract';
import { payoutWorkflow } from '../../workflows/payout/workflow';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  freshInn,
  uniquePrefix,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { recordHistoryIfAsked } from '../harness/replay';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';

/**
 * Issue 34: someone with Temporal's Update rights pre-reserved a batch's references at 1 kopeck each, and
 * 3 × 900 000,00 ₽ then paid past the 2 400 000,00 ₽ cap. A reservation now counts only when the ledger
 * proves it came from the running payout run it names; the limits are the worker's policy's.
 */
const RULES = { ...NO_APPROVALS, self_employed_yearly_cap: '2 400 000,00' };
const HUGE = { yearlyCapKopecks: Number.MAX_SAFE_INTEGER, perPayoutKopecks: Number.MAX_SAFE_INTEGER };
const AMOUNT = 900_000_00;

describe('reservations only a payout can make', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  it('refuses reservations sent by hand, shows them as refused, and a later 3 × 900 000,00 ₽ batch pays only to the cap', async () => {
    const inn = freshInn(99_301);
    const p = uniquePrefix();
    const references = [1, 2, 3].map((i) => `${p}-${i}`);
    const ledger = stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, inn));
    const forged = (reference: string, extra: Partial<ReserveRequest> = {}): ReserveRequest => ({
      reference,
      workflowId: payoutWorkflowId(reference),
      amount: 1,
      selfEmployed: true,
      at: new Date().toISOString(),
      limits: HUGE,
      ...extra,
    });

    // No run named (the shape that was accepted before), the ledger started by the same call a payout makes.
    expect(
      await updateLedgerWithStart(stack.client, stack.taskQueue, inn, reserveIncomeUpdate, [
        forged(references[0]!),
      ]),
    ).toMatchObject({ ok: false, unproven: 'no_run' });
    // A made-up run, and another reference's workflow: plain Updates to the running ledger.
    const send = (req: ReserveRequest) => ledger.executeUpdate(reserveIncomeUpdate, { args: [req] });
    expect(await send(forged(references[1]!, { runId: randomUUID() }))).toMatchObject({
      ok: false,
      unproven: 'no_such_run',
    });
    expect(
      await send(forged(references[2]!, { workflowId: payoutWorkflowId(`${p}-other`), runId: randomUUID() })),
    ).toMatchObject({ ok: false, unproven: 'not_its_workflow' });
    // A real run of a payout workflow, started by hand with its 1 kopeck on a queue no worker of payrun's
    // polls (so it stays running, and never asks for approval): no payout of this worker's.
    const decoy = payoutRequest({ reference: `${p}-decoy`, amount: 1 });
    const decoyRun = await stack.client.workflow.start(payoutWorkflow, {
      taskQueue: `${stack.taskQueue}-nobody`,
      workflowId: payoutWorkflowId(decoy.reference),
      args: [{ request: { ...decoy, recipient: { ...decoy.recipient, taxReference: inn } } }],
    });
    expect(await send(forged(decoy.reference, { runId: decoyRun.firstExecutionRunId }))).toMatchObject({
      ok: false,
      unproven: 'not_a_payout',
    });
    await decoyRun.terminate('a test: the decoy has served');
    // The same through the Update that carries several reservations at once (activities/courier.ts).
    expect(
      await ledger.executeUpdate(reserveIncomeManyUpdate, {
        args: [[forged(`${p}-m1`), forged(`${p}-m2`, { runId: randomUUID() })]],
      }),
    ).toMatchObject([
      { ok: false, unproven: 'no_run' },
      { ok: false, unproven: 'no_such_run' },
    ]);

    const before = await ledger.query(recipientQuery);
    expect(before.openReservations).toBe(0);
    expect(before.years).toEqual([]);
    expect(before.refused?.map((r) => [r.reference, r.amount, r.why])).toEqual([
      [references[0], 1, 'no_run'],
      [references[1], 1, 'no_such_run'],
      [references[2], 1, 'not_its_workflow'],
      [decoy.reference, 1, 'not_a_payout'],
      [`${p}-m1`, 1, 'no_run'],
      [`${p}-m2`, 1, 'no_such_run'],
    ]);
    const shownBefore = await runCli(['recipient', 'show', inn], stack.cliEnv('viewer'));
    expect(shownBefore.code).toBe(0);
    expect(shownBefore.stdout).toContain('отклонённые резервы (не от выплаты, не учтены):');
    expect(shownBefore.stdout).toMatch(
      new RegExp(`${references[1]} 0,01 ₽ отклонён: такого запуска выплаты нет`),
    );
    expect(shownBefore.stdout).toMatch(/лимит дохода самозанятого 2 400 000,00 ₽: осталось 2 400 000,00 ₽/);

    // The batch the reservations were forged for: its three rows reserve for themselves, under the cap.
    const rows = references.map((reference) => ({ reference, inn, amount: '900000.00' }));
    const { batchId } = await dropAndSubmit(stack, paths, 'forged-cap.csv', batchCsv(rows));
    const result = await batchHandle(stack, batchId).result();
    expect(result.counts).toMatchObject({ succeeded: 2, limit_exceeded: 1 });

    // The bank paid exactly two of them: 1 800 000,00 ₽.
    const paid = stack.sandbox
      .ledger()
      .filter((e) => e.kind === 'payout' && references.includes(e.recipient_reference ?? ''));
    expect(paid).toHaveLength(2);
    expect(paid.reduce((sum, e) => sum + e.amount, 0)).toBe(2 * AMOUNT);
    const refusedRow = references.find((r) => !paid.some((e) => e.recipient_reference === r))!;
    const over = await outcome(stack.client.workflow.getHandle(payoutWorkflowId(refusedRow)));
    expect(over.state).toBe('limit_exceeded');
    expect(over.failure?.reason).toMatch(
      /^900 000,00 ₽ would pass the self-employed income cap for \d{4}, 2 400 000,00 ₽: 600 000,00 ₽ left; nothing was sent to the bank$/,
    );

    const shown = await runCli(['recipient', 'show', inn], stack.cliEnv('viewer'));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\d{4}: выплачено 1 800 000,00 ₽, в резерве 0,00 ₽/);
    expect(shown.stdout).toMatch(/лимит дохода самозанятого 2 400 000,00 ₽: осталось 600 000,00 ₽/);
    expect(shown.stdout).not.toContain(inn);

    // At most one proof activity in the ledger's history per reservation proven against the server
    // (reservations that arrive together share one; none without a run); the payouts' histories gain nothing.
    const events = (await ledger.fetchHistory()).events ?? [];
    const proofs = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'provePayouts',
    );
    expect(proofs.length).toBeGreaterThanOrEqual(3 + 1);
    expect(proofs.length).toBeLessThanOrEqual(3 + 3);
    await ledger.terminate('a test: recorded');
    await recordHistoryIfAsked('recipient-reservations-proven', ledger);

    // A decoy under the ledger's id, on a queue no worker serves, with an empty year of someone's making,
    // terminated in turn: it never held a figure, so the rebuild passes over it to the run that did.
    const emptyYear = await stack.client.workflow.start('recipientWorkflow', {
      taskQueue: `nobody-polls-${randomUUID()}`,
      workflowId: ledger.workflowId,
      args: [{ state: { years: [] } }],
    });
    await emptyYear.terminate('a test: a decoy that never ran');

    // Terminated by hand, the ledger is rebuilt by the next payout: the refused ones shown again, still
    // counted nowhere — exactly the 600 000,00 ₽ left fits, a kopeck more does not.
    const person = (amount: number) => {
      const r = payoutRequest({ amount });
      return { ...r, recipient: { ...r.recipient, taxReference: inn } };
    };
    expect((await outcome(await startPayout(stack, person(600_000_00)))).state).toBe('succeeded');
    expect((await outcome(await startPayout(stack, person(1)))).state).toBe('limit_exceeded');
    const rebuilt = await ledger.query(recipientQuery);
    // (The two sent together read back from the terminated run's reserveIncomeMany Update.)
    expect(rebuilt.refused?.map((r) => r.why)).toEqual([
      'no_run',
      'no_such_run',
      'not_its_workflow',
      'not_a_payout',
      'no_run',
      'no_such_run',
    ]);
  });
});
