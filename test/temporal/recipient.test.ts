import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { outcomeReason } from '../../src/i18n/row-reasons';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import { setLedgerClockForTests } from '../../activities/recipient';
import { recipientLedgerId } from '../../src/temporal/person-ids';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import { recipientQuery, refreshRecipientUpdate } from '../../workflows/recipient-ledger/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  freshInn,
  ledgerPayouts,
  readReport,
  uniquePrefix,
} from '../harness/batches';
import { FAST, outcome, paidEntries, payoutRequest, requestsTo, startPayout } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';
import { runCli } from '../harness/cli-process';
import { reportPathOf } from '../harness/reports';

/**
 * The recipient's year: a cap of 5 000,00 ₽ for self-employed income (test rows are 1 500,00 ₽), so that
 * a few rows cross it; a per-payout limit of 1 000,00 ₽ for one tax number. Checked against the ledger.
 */
const LIMITED_INN = freshInn(99_001);
const RULES = {
  ...NO_APPROVALS,
  self_employed_yearly_cap: '5 000,00',
  recipients: [{ inn: LIMITED_INN, per_payout_limit: '1 000,00' }],
};

describe("the recipient's year", () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  const ledger = (inn: string) =>
    stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, inn)).query(recipientQuery);

  it('two batches started together for one person pay only what fits under the cap; the rest ends limit_exceeded', async () => {
    const inn = freshInn(99_002);
    const files = [0, 1].map(() => Array.from({ length: 2 }, (_, i) => `${uniquePrefix()}-${i}`));
    const submitted = await Promise.all(
      files.map((references, i) =>
        dropAndSubmit(
          stack,
          paths,
          `cap-${i}.csv`,
          batchCsv(references.map((reference) => ({ reference, inn }))),
        ),
      ),
    );
    const results = await Promise.all(submitted.map((r) => batchHandle(stack, r.batchId).result()));
    const counts = results.map((r) => r.counts);
    // 4 rows of 1 500,00 ₽ against 5 000,00 ₽: three fit, whichever batch they came from.
    expect(counts.reduce((n, c) => n + (c.succeeded ?? 0), 0)).toBe(3);
    expect(counts.reduce((n, c) => n + (c.limit_exceeded ?? 0), 0)).toBe(1);
    const paid = ledgerPayouts(stack, files.flat());
    expect([...paid.values()].sort()).toEqual([0, 1, 1, 1]);
    const year = (await ledger(inn)).years.at(-1)!;
    expect(year.paidKopecks + year.reservedKopecks).toBe(450_000);

    // What accounting reads: the year's figures and headroom, the tax number masked.
    const shown = await runCli(['recipient', 'show', inn], stack.cliEnv('viewer'));
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain(inn);
    expect(shown.stdout).toContain(`Получатель ********${inn.slice(-4)}`);
    expect(shown.stdout).toMatch(/лимит дохода самозанятого 5 000,00 ₽: осталось 500,00 ₽/);
    // Refreshed from the payouts' records: the three paid ones are income now, nothing is held.
    expect(shown.stdout).toMatch(/\d{4}: выплачено 4 500,00 ₽, в резерве 0,00 ₽/);
    expect((await runCli(['recipient', 'show', '123'], stack.cliEnv('viewer'))).code).toBe(2);

    // The dry run reads the same ledger: 500,00 ₽ left, so 400,00 ₽ fits and 200,00 ₽ after it would not.
    const p = uniquePrefix();
    const file = join(paths.batchesDir, 'dry-headroom.csv');
    writeFileSync(
      file,
      batchCsv([
        { reference: `${p}-fits`, inn, amount: '400.00' },
        { reference: `${p}-over`, inn, amount: '200.00' },
      ]),
    );
    const env = {
      ...stack.cliEnv('preparer'),
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
    };
    const dry = await runCli(['batch', 'submit', file, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toContain(inn);
    expect(dry.stdout).toMatch(
      /200,00 ₽ превысит лимит дохода самозанятого за \d{4} год 5 000,00 ₽: осталось 100,00 ₽ \(limit_exceeded\)/,
    );
    expect(dry.stdout).toContain(
      `  ********${inn.slice(-4)}, ${year.year}: лимит дохода самозанятого 5 000,00 ₽: осталось 500,00 ₽, после файла 100,00 ₽`,
    );
    expect(ledgerPayouts(stack, [`${p}-fits`, `${p}-over`])).toEqual(
      new Map([
        [`${p}-fits`, 0],
        [`${p}-over`, 0],
      ]),
    );
  });

  it("the report's last column is each paid-for row's headroom under the person's limits, a declined row's reservation freed", async () => {
    const inn = freshInn(99_005);
    const p = uniquePrefix();
    const rows = [
      { reference: `${p}-1`, inn },
      { reference: `${p}-2`, inn },
      { reference: `${p}-plain`, inn: freshInn(99_006), selfEmployed: false }, // no limit applies
      // Declined by the bank: its 1 500,00 ₽ reserved is freed before the report tells the person's figure,
      // the rows above it included (without, all three said 500,00).
      { reference: `${p}-declined`, inn, card: TEST_CARDS.DECLINED_BY_ISSUER },
    ];
    const { batchId } = await dropAndSubmit(stack, paths, 'headroom.csv', batchCsv(rows));
    const reportPath = await reportPathOf(paths, batchId, await batchHandle(stack, batchId).result());
    const report = readReport(reportPath, false);
    // headroom after the older columns, then the state in words, the last column.
    expect(Object.keys(report[0]!).slice(-2)).toEqual(['headroom', 'Результат']);
    expect(report.map((r) => [r.reference, r.state, r.headroom])).toEqual([
      [`${p}-1`, 'succeeded', '2000,00'],
      [`${p}-2`, 'succeeded', '2000,00'],
      [`${p}-plain`, 'succeeded', ''],
      [`${p}-declined`, 'failed', '2000,00'],
    ]);
  });

  it('a failed payout frees its reservation for the next one', async () => {
    const inn = freshInn(99_003);
    const declined = await outcome(
      await startPayout(
        stack,
        payoutRequest({
          recipient: { ...payoutRequest().recipient, taxReference: inn },
          amount: 300_000,
          method: { type: 'card', cardNumber: TEST_CARDS.DECLINED_BY_ISSUER },
        }),
      ),
    );
    expect(declined.state).toBe('failed');
    // Were the failed payout's 3 000,00 ₽ still held, the first 2 500,00 ₽ would not fit under 5 000,00 ₽.
    const next = [payoutRequest(), payoutRequest(), payoutRequest()].map((r) => ({
      ...r,
      recipient: { ...r.recipient, taxReference: inn },
      amount: 250_000,
    }));
    const states = [];
    for (const request of next) states.push(await outcome(await startPayout(stack, request)));
    expect(states.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'limit_exceeded']);
    expect(states[2]!.failure?.reason).toMatch(
      /^2 500,00 ₽ would pass the self-employed income cap for \d{4}, 5 000,00 ₽: 0,00 ₽ left; nothing was sent to the bank$/,
    );
    // The report and `batch status` say it in the language set (Russian by default) from these words.
    const inReport: BatchRowOutcome = {
      row: 4,
      reference: next[2]!.reference,
      amount: 250_000,
      state: 'limit_exceeded',
      errorCode: states[2]!.failure!.code,
      reason: states[2]!.failure!.reason,
    };
    expect(outcomeReason(inReport, 'ru')).toMatch(
      /^2 500,00 ₽ превысит лимит дохода самозанятого за \d{4} год 5 000,00 ₽: осталось 0,00 ₽ \(limit_exceeded\)$/,
    );
    expect(paidEntries(stack, next[2]!.reference)).toHaveLength(0);
    const year = (await ledger(inn)).years.at(-1)!;
    expect(year.paidKopecks + year.reservedKopecks).toBe(500_000);
  });

  it('a returned payout gives its income back', async () => {
    const inn = freshInn(99_009);
    const person = (amount: number, card: string = TEST_CARDS.SUCCESS) => {
      const r = payoutRequest({ amount, method: { type: 'card', cardNumber: card } });
      return { ...r, recipient: { ...r.recipient, taxReference: inn } };
    };
    const returned = await outcome(
      await startPayout(stack, person(300_000, TEST_CARDS.RETURNED), {
        ...FAST,
        awaitCreditConfirmation: true,
        creditConfirmationWindowMs: 20_000,
      }),
    );
    expect(returned.state).toBe('returned');
    // Were the returned 3 000,00 ₽ still counted, 2 500,00 ₽ would not fit under 5 000,00 ₽.
    expect((await outcome(await startPayout(stack, person(250_000)))).state).toBe('succeeded');
    const year = (await ledger(inn)).years.at(-1)!;
    expect(year.payouts.map((p) => [p.amount, p.state])).toEqual([
      [300_000, 'returned'],
      [250_000, 'reserved'],
    ]);
  });

  it('the headroom resets on 1 January, Moscow time', async () => {
    const inn = freshInn(99_004);
    const person = (amount: number) => {
      const r = payoutRequest({ amount });
      return { ...r, recipient: { ...r.recipient, taxReference: inn } };
    };
    const payAt = async (iso: string, amount: number) => {
      setLedgerClockForTests(() => Date.parse(iso));
      return outcome(await startPayout(stack, person(amount)));
    };
    try {
      // 23:59 on 31 December in Moscow (UTC+3): 4 000,00 ₽ of the 5 000,00 ₽ cap, counted in 2026.
      expect((await payAt('2026-12-31T20:59:00Z', 400_000)).state).toBe('succeeded');
      const late = await payAt('2026-12-31T20:59:59Z', 150_000);
      expect(late.state).toBe('limit_exceeded');
      expect(late.failure?.reason).toMatch(/self-employed income cap for 2026, 5 000,00 ₽: 1 000,00 ₽ left/);
      // 00:00 on 1 January in Moscow, still 31 December in UTC: the whole cap again.
      expect((await payAt('2026-12-31T21:00:00Z', 500_000)).state).toBe('succeeded');
    } finally {
      setLedgerClockForTests();
    }
    const years = (
      await stack.client.workflow
        .getHandle(recipientLedgerId(stack.taskQueue, inn))
        .executeUpdate(refreshRecipientUpdate)
    ).years;
    expect(years.map((y) => [y.year, y.paidKopecks, y.reservedKopecks])).toEqual([
      [2026, 400_000, 0],
      [2027, 500_000, 0],
    ]);
  });

  it('a ledger terminated by hand is rebuilt from its records and the payouts’, twice over', async () => {
    const inn = freshInn(99_007);
    const pay = async (amount: number) => {
      const r = payoutRequest({ amount });
      return (
        await outcome(await startPayout(stack, { ...r, recipient: { ...r.recipient, taxReference: inn } }))
      ).state;
    };
    const handle = stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, inn));
    expect(await pay(300_000)).toBe('succeeded');
    await handle.terminate('by hand, in a test');
    // Started afresh by the next reservation, it still knows the 3 000,00 ₽: 2 500,00 ₽ would pass 5 000,00 ₽.
    expect(await pay(250_000)).toBe('limit_exceeded');
    expect(await pay(150_000)).toBe('succeeded');
    await handle.terminate('by hand again: the rebuilt run is rebuilt in turn');
    expect(await pay(50_001)).toBe('limit_exceeded');
    expect(await pay(50_000)).toBe('succeeded');
    const year = (await handle.executeUpdate(refreshRecipientUpdate)).years.at(-1)!;
    expect(year).toMatchObject({ paidKopecks: 500_000, reservedKopecks: 0 });
    expect(year.payouts.filter((p) => p.state === 'paid')).toHaveLength(3);
  });

  it('looking at a ledger with nothing held does not stop it settling later', async () => {
    const inn = freshInn(99_008);
    const start = (amount: number, card: string = TEST_CARDS.SUCCESS) => {
      const r = payoutRequest({ amount, method: { type: 'card', cardNumber: card } });
      return startPayout(stack, { ...r, recipient: { ...r.recipient, taxReference: inn } });
    };
    const handle = stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, inn));
    expect((await outcome(await start(150_000))).state).toBe('succeeded');
    await handle.executeUpdate(refreshRecipientUpdate); // settles the paid one
    await handle.executeUpdate(refreshRecipientUpdate); // nothing held now
    expect((await outcome(await start(300_000, TEST_CARDS.DECLINED_BY_ISSUER))).state).toBe('failed');
    // The declined 3 000,00 ₽ is released when 2 500,00 ₽ would otherwise be refused.
    expect((await outcome(await start(250_000))).state).toBe('succeeded');
  });

  it('a per-payout limit refuses a row before the bank is called', async () => {
    const request = payoutRequest({ recipient: { ...payoutRequest().recipient, taxReference: LIMITED_INN } });
    const creates = await requestsTo(stack, 'session/init/payout');
    const refused = await outcome(await startPayout(stack, request));
    expect(refused).toMatchObject({ state: 'limit_exceeded', failure: { code: 'limit_exceeded' } });
    expect(refused.failure?.reason).toMatch(/1 500,00 ₽ would pass the per-payout limit of 1 000,00 ₽/);
    expect(refused.bank.sessionId).toBeUndefined();
    expect(await requestsTo(stack, 'session/init/payout')).toBe(creates);
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
  });
});
