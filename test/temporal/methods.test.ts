import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { dryRunBatch, formatDryRun } from '../../src/batch/commands/dry-run';
import { retryFailed } from '../../src/batch/commands/retry';
import type { PayoutMethod } from '../../src/domain';
import { TEST_CARDS, TEST_INNS, TEST_PHONES } from '../../src/sandbox/test-values';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { lookupPayout } from '../../src/batch/services/lookup';
import { verdictFromTaxpayerWorkflow, type TaxpayerAsk } from '../../src/batch/commands/verdicts';
import {
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  readReport,
  uniquePrefix,
} from '../harness/batches';
import { outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { reportPathOf } from '../harness/reports';

/** Runs a submitted batch to its end and reads its report. */
async function reportOf(stack: Stack, paths: BatchPaths, batchId: string) {
  const result = await batchHandle(stack, batchId).result();
  return readReport(await reportPathOf(paths, batchId, result), false);
}

const METHODS: Record<string, PayoutMethod> = {
  card: { type: 'card', cardNumber: TEST_CARDS.SUCCESS_MASTERCARD },
  bank_account: { type: 'bank_account', bik: '044525225', account: '40817810300000123456' },
  fps: { type: 'fps', phone: TEST_PHONES.FOUND, bankId: '100000000111' },
};

/** A file with every method's columns, like batches/examples/03 (kopeck amounts, UTF-8). */
function mixedCsv(
  rows: {
    reference: string;
    method: keyof typeof METHODS;
    inn?: string;
    kopecks?: number;
    selfEmployed?: boolean;
  }[],
): Buffer {
  const header =
    'reference,last_name,first_name,inn,method,card_number,bik,account,phone,bank_id,amount_kopecks,service_name,self_employed';
  const lines = rows.map((r) => {
    const m = METHODS[r.method]!;
    const cells = [
      r.reference,
      'Соколов',
      'Игорь',
      r.inn ?? TEST_INNS.SELF_EMPLOYED_LINKED,
      r.method,
      m.type === 'card' ? m.cardNumber : '',
      m.type === 'bank_account' ? m.bik : '',
      m.type === 'bank_account' ? m.account : '',
      m.type === 'fps' ? m.phone : '',
      m.type === 'fps' ? m.bankId : '',
      String(r.kopecks ?? 123_456),
      'Аудит кода',
      r.selfEmployed === false ? 'no' : 'yes',
    ];
    return cells.join(',');
  });
  return Buffer.from([header, ...lines].join('\n') + '\n');
}

describe('every payout method pays through the real stack', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  describe.each(Object.keys(METHODS))('%s', (method) => {
    it.each([true, false])(
      'self-employed %s: paid once, with the fields the bank requires',
      async (selfEmployed) => {
        const request = payoutRequest({ method: METHODS[method]!, selfEmployed, amount: 98_765 });
        const status = await outcome(await startPayout(stack, request));
        expect(status).toMatchObject({ state: 'succeeded', amount: 98_765 });
        expect(status.failure).toBeUndefined();
        const paid = paidEntries(stack, request.reference);
        expect(paid).toHaveLength(1);
        expect(paid[0]).toMatchObject({ amount: 98_765, session_id: status.bank.sessionId });
        // A receipt only for a self-employed recipient: the fiscalization block went (or did not go) out.
        if (selfEmployed) expect(status.bank.receiptLink).toMatch(/^https?:\/\//);
        else expect(status.bank.receiptLink).toBeUndefined();
        const { session } = await stack.bank.sessions.status({ session_id: status.bank.sessionId! });
        const block = session!.payments![0]!.payment_method as {
          type: string;
          bank_account?: { system_type: string };
        };
        expect(block.type).toBe(method === 'card' ? 'card' : 'bank_account');
        if (method !== 'card')
          expect(block.bank_account?.system_type).toBe(method === 'fps' ? 'faster_payment_system' : 'ru');
      },
    );
  });

  it('a batch of mixed methods pays every row (bank accounts included)', async () => {
    const p = uniquePrefix();
    const rows = (['card', 'bank_account', 'fps'] as const).flatMap((method) => [
      { reference: `${p}-${method}-se`, method },
      { reference: `${p}-${method}-plain`, method, selfEmployed: false },
    ]);
    const r = await dropAndSubmit(stack, paths, 'mixed.csv', mixedCsv(rows));
    const report = await reportOf(stack, paths, r.batchId);
    expect(report.map((x) => x.state)).toEqual(rows.map(() => 'succeeded'));
    for (const row of rows) expect(paidEntries(stack, row.reference)).toHaveLength(1);
  });

  it('a row the bank refused is failed with the bank’s words, and retry-failed pays it exactly once', async () => {
    const p = uniquePrefix();
    const refused = `${p}-refused`;
    const fine = `${p}-fine`;
    await fetch(`${stack.sandbox.url}/__admin/faults`, {
      method: 'POST',
      body: JSON.stringify({
        http: [
          {
            kind: 'refuse',
            paths: ['/api/v1/session/init/payout'],
            times: 1,
            code: 'invalid_request',
            description: 'payment_method.bank_account.ru.account 40817810300000123456: account is closed',
          },
        ],
      }),
    });
    try {
      const r = await dropAndSubmit(
        stack,
        paths,
        'refused.csv',
        mixedCsv([
          { reference: refused, method: 'bank_account' },
          { reference: fine, method: 'card' },
        ]),
        { batchOptions: { maxInFlight: 1 } },
      );
      const first = await reportOf(stack, paths, r.batchId);
      const row = first.find((x) => x.reference === refused)!;
      expect(row).toMatchObject({ state: 'failed', error_code: 'invalid_request' });
      expect(row.reason).toContain('account is closed');
      expect(row.reason).not.toContain('40817810300000123456'); // the bank's words, numbers masked
      expect(row.reason).toContain('****************3456');
      expect(paidEntries(stack, refused)).toHaveLength(0);
      const lookup = await lookupPayout(stack.client, payoutWorkflowId(refused));
      expect(lookup).toMatchObject({ kind: 'not_paid', status: { state: 'failed' } });

      const retryOptions = { paths, taskQueue: stack.taskQueue, submitter: stack.signer('preparer') };
      const retry = await retryFailed(stack.client, r.batchId, retryOptions);
      expect(retry.rows).toBe(1);
      await batchHandle(stack, retry.batchId).result();
      expect(paidEntries(stack, refused)).toHaveLength(1);
      expect(paidEntries(stack, fine)).toHaveLength(1);
      // Once more: nothing left to retry, nothing paid again.
      await expect(retryFailed(stack.client, retry.batchId, retryOptions)).rejects.toThrow(
        /нет строк для повтора/,
      );
      expect(paidEntries(stack, refused)).toHaveLength(1);
    } finally {
      await fetch(`${stack.sandbox.url}/__admin/faults`, { method: 'POST', body: '{}' });
    }
  });

  it('a reused reference is already_paid only for the same payee and amount; otherwise reference_conflict, nothing paid', async () => {
    const p = uniquePrefix();
    const ref = `${p}-shared`;
    const first = await dropAndSubmit(
      stack,
      paths,
      'first.csv',
      mixedCsv([{ reference: ref, method: 'card' }]),
    );
    await reportOf(stack, paths, first.batchId);
    expect(paidEntries(stack, ref)).toHaveLength(1);

    // The dry run says what the real run will: the same payee is already paid, another one conflicts.
    const dryFile = join(paths.batchesDir, `${p}-dry.csv`);
    writeFileSync(
      dryFile,
      mixedCsv([
        { reference: ref, method: 'card' },
        { reference: `${p}-new`, method: 'card' },
      ]),
    );
    const lookupReference = (reference: string) => lookupPayout(stack.client, payoutWorkflowId(reference));
    // As `batch submit --dry-run` does: the verdict the first batch's payout got, not a second npd/check
    // within the bank's 30-second rule for one tax number (that cost this test 31 s a dry run).
    const checkTaxpayer = (ask: TaxpayerAsk) =>
      verdictFromTaxpayerWorkflow(stack.client, stack.taskQueue, ask);
    const dry = await dryRunBatch(stack.bank, dryFile, { paths, lookupReference, checkTaxpayer });
    expect(dry.rows.map((x) => [x.pay, x.why ?? ''])).toEqual([
      [false, expect.stringMatching(/^уже выплачено/)],
      [true, ''],
    ]);
    writeFileSync(dryFile, mixedCsv([{ reference: ref, method: 'card', kopecks: 999_00 }]));
    const dryConflict = await dryRunBatch(stack.bank, dryFile, { paths, lookupReference, checkTaxpayer });
    expect(dryConflict.rows[0]).toMatchObject({
      pay: false,
      why: expect.stringMatching(/^конфликт референса.*сумма \(была 1 234,56 ₽, в файле 999,00 ₽\)/),
    });
    expect(formatDryRun(dryConflict).join('\n')).toMatch(/не будет выплачено — конфликт референса/);

    // The same row again in another file (a trailing blank line makes it another batch), then the
    // reference reused for another amount, and for another person.
    const again = await dropAndSubmit(
      stack,
      paths,
      'again.csv',
      Buffer.concat([mixedCsv([{ reference: ref, method: 'card' }]), Buffer.from('\n')]),
    );
    const other = await dropAndSubmit(
      stack,
      paths,
      'other.csv',
      mixedCsv([{ reference: ref, method: 'card', kopecks: 999_00 }]),
    );
    const person = await dropAndSubmit(
      stack,
      paths,
      'person.csv',
      mixedCsv([{ reference: ref, method: 'fps', inn: '500100732259' }]),
    );
    const [againReport, otherReport, personReport] = await Promise.all(
      [again, other, person].map((b) => reportOf(stack, paths, b.batchId)),
    );
    expect(againReport![0]).toMatchObject({ state: 'already_paid' });
    const amountConflict = otherReport![0]!;
    expect(amountConflict).toMatchObject({ state: 'reference_conflict', error_code: 'reference_conflict' });
    expect(amountConflict.reason).toMatch(/сумма \(была 1 234,56 ₽, в файле 999,00 ₽\)/);
    const personConflict = personReport![0]!;
    expect(personConflict.state).toBe('reference_conflict');
    expect(personConflict.reason).toMatch(/ИНН получателя/);
    expect(personConflict.reason).toMatch(/способ выплаты/);
    expect(personConflict.reason).not.toContain('500100732259');
    expect(paidEntries(stack, ref)).toHaveLength(1);
    expect(ledgerPayouts(stack, [ref]).get(ref)).toBe(1);
  });
});
