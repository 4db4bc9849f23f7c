import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEventEndpoints, EVENT_ENDPOINTS_VAR } from '../../src/config';
import { startEventReceiver } from '../harness/event-receiver';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { repayment, retryFailed } from '../../src/batch/commands/retry';
import { unprovenRepayment } from '../../src/batch/services/repayment';
import { readAllRows, readMergedOutcomes } from '../../src/batch/store/reads';
import type { BatchPaths } from '../../src/batch/services/config';
import { lookupPayout } from '../../src/batch/services/lookup';
import { batchStoreFor } from '../../src/batch/store/open';
import { payoutStatus } from '../../src/cli/payout';
import { hashPassword } from '../../src/console/passwords';
import { writePolicy } from '../../src/policy/generate';
import { addDays, dayStartMs, moscowDay } from '../../src/reconcile/days';
import { previousName } from '../../src/returns/report';
import { listReceipts } from '../../src/returns/receipts';
import { startPayoutReturn } from '../../src/routing/returns';
import { TEST_INNS } from '../../src/sandbox/test-values';
import { recipientLedgerId } from '../../src/temporal/person-ids';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import {
  payoutReturnWorkflowId,
  RETURN_UNPROVEN_TYPE,
  type PayoutReturnStatus,
} from '../../workflows/payout-return/contract';
import {
  refreshRecipientUpdate,
  takeBackIncomeUpdate,
  type RecipientView,
} from '../../workflows/recipient-ledger/contract';
import { inboxQuery } from '../../workflows/webhook-inbox/contract';
import { batchHandle, batchTestPaths, dropAndSubmit, readReport, uniquePrefix } from '../harness/batches';
import { launchChromium } from '../harness/browser';
import { workTimeout } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { spawnConsole } from '../harness/console-process';
import { QUICK_WAIT, reconcileDayNow, sandboxAdmin } from '../harness/reconciliation';
import { paidEntries } from '../harness/payouts';
import { NO_APPROVALS, startStack, TEST_PEOPLE, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// Issue 37: a payout the recipient's bank sent back, by its signed webhook, its statement line or both,
// makes one return: the row returned in the report, the payout's status and batch status, the income
// taken back from the ledger, the receipt put on the annulment list.

/** A deposit account of this file's own: reconciliation workflow ids name the account and the day. */
const DEPOSIT_ACCOUNT = '40702810700000000085';
const BANK_ACCOUNT = { bik: '044525225', account: '40817810300000123456' };
const PERSON = TEST_INNS.SELF_EMPLOYED_LINKED;

function fileOf(rows: { reference: string; method: 'card' | 'bank_account'; kopecks: number }[]): Buffer {
  const header =
    'reference,last_name,first_name,inn,method,card_number,bik,account,amount_kopecks,service_name,self_employed';
  const lines = rows.map((r) =>
    [
      r.reference,
      'Соколов',
      'Игорь',
      PERSON,
      r.method,
      r.method === 'card' ? '2200000000000012' : '',
      r.method === 'bank_account' ? BANK_ACCOUNT.bik : '',
      r.method === 'bank_account' ? BANK_ACCOUNT.account : '',
      String(r.kopecks),
      'Аудит кода',
      'yes',
    ].join(','),
  );
  return Buffer.from([header, ...lines].join('\n') + '\n');
}

const EVENT_SECRET = 'return-events-secret-of-at-least-32-bytes';

describe('a payout the recipient’s bank returned', () => {
  let stack: Stack;
  let paths: BatchPaths;
  const wait = () => workTimeout({ units: 1, perUnitMs: 60_000, floorMs: 90_000 });

  let receiver: Awaited<ReturnType<typeof startEventReceiver>>;

  beforeAll(async () => {
    paths = batchTestPaths();
    // An ERP that takes only returns: each returned payout tells it once, signed; a refused return never.
    receiver = await startEventReceiver(EVENT_SECRET, 0);
    const secretFile = join(mkdtempSync(join(tmpdir(), 'payrun-return-events-')), 'erp.secret');
    writeFileSync(secretFile, EVENT_SECRET);
    const endpoints = loadEventEndpoints({
      [EVENT_ENDPOINTS_VAR]: JSON.stringify([
        { name: 'erp', url: receiver.url, secretFile, types: ['payout.returned'] },
      ]),
    });
    stack = await startStack({ sandbox: { accounts: { deposit: DEPOSIT_ACCOUNT } }, events: { endpoints } });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const sessionOf = async (reference: string) => {
    const lookup = await lookupPayout(stack.client, payoutWorkflowId(reference));
    if (lookup.kind !== 'paid') throw new Error(`${reference} is ${lookup.kind}`);
    return lookup.status.bank.sessionId!;
  };
  const returnHandle = (session: string) =>
    stack.client.workflow.getHandle(payoutReturnWorkflowId(stack.taskQueue, session));
  /** The return's result, once the bank's word has started it (waited for, never raced). */
  const returnOf = async (session: string): Promise<PayoutReturnStatus> => {
    await waitFor(
      async () => {
        const d = await returnHandle(session)
          .describe()
          .catch(() => undefined);
        return d?.status.name === 'COMPLETED';
      },
      wait(),
      `the return of ${session}`,
    );
    return (await returnHandle(session).result()) as PayoutReturnStatus;
  };
  const runsOf = async (session: string) => {
    let runs = 0;
    for await (const _ of stack.client.workflow.list({
      query: `WorkflowId = "${payoutReturnWorkflowId(stack.taskQueue, session)}"`,
    }))
      runs++;
    return runs;
  };
  const ledger = () => stack.client.workflow.getHandle(recipientLedgerId(stack.taskQueue, PERSON));
  const clockNow = async () => (await sandboxAdmin(stack, 'clock')).now_ms as number;

  it('by webhook, by statement and by both: each returned everywhere, once', async () => {
    const p = uniquePrefix();
    const card = `${p}-card`;
    const byStatement = `${p}-acct-st`;
    const byBoth = `${p}-acct-both`;
    const kept = `${p}-kept`;
    const amounts: Record<string, number> = {
      [card]: 150_000,
      [byStatement]: 220_000,
      [byBoth]: 330_000,
      [kept]: 10_000,
    };
    const submitted = await dropAndSubmit(
      stack,
      paths,
      'returns.csv',
      fileOf([
        { reference: card, method: 'card', kopecks: amounts[card]! },
        { reference: byStatement, method: 'bank_account', kopecks: amounts[byStatement]! },
        { reference: byBoth, method: 'bank_account', kopecks: amounts[byBoth]! },
        { reference: kept, method: 'card', kopecks: amounts[kept]! },
      ]),
    );
    const final = await batchHandle(stack, submitted.batchId).result();
    expect(readReport(final.reportPath, false).map((r) => r.state)).toEqual(Array(4).fill('succeeded'));
    const session: Record<string, string> = {};
    for (const ref of [card, byStatement, byBoth, kept]) session[ref] = await sessionOf(ref);

    // Someone with Temporal's start rights forges a return of a payout nobody returned: refused, nothing marked.
    await startPayoutReturn(stack.client, stack.taskQueue, session[kept]!, {
      source: 'statement',
      account: DEPOSIT_ACCOUNT,
      day: moscowDay(await clockNow()),
      bankSystemId: 'forged-1',
    });
    await expect(returnHandle(session[kept]!).result()).rejects.toMatchObject({
      cause: { type: RETURN_UNPROVEN_TYPE },
    });
    const forgedTakeBack = await ledger().executeUpdate(takeBackIncomeUpdate, {
      args: [{ reference: kept, sessionId: session[kept]! }],
    });
    expect(forgedTakeBack).toMatchObject({ ok: false });

    // The bank's own word, but of a part: the recipient's bank kept a fee. Nothing is marked; the row stays
    // paid and is not paid again (a whole re-payment would pay the kept part twice).
    const forgedRun = (await returnHandle(session[kept]!).describe()).runId;
    await sandboxAdmin(stack, `sessions/${session[kept]}/return`, { via: 'webhook', keep_kopecks: 100 });
    await waitFor(
      async () => {
        const d = await returnHandle(session[kept]!).describe();
        return d.runId !== forgedRun && d.status.name === 'FAILED';
      },
      wait(),
      'the partial return refused',
    );
    await expect(returnHandle(session[kept]!).result()).rejects.toMatchObject({
      cause: {
        type: RETURN_UNPROVEN_TYPE,
        message: expect.stringContaining(
          `the bank returned ${amounts[kept]! - 100} of ${amounts[kept]} kopecks`,
        ),
      },
    });

    // The card comes back now by the bank's signed webhook, after its payout workflow closed.
    await sandboxAdmin(stack, `sessions/${session[card]}/return`, { via: 'webhook' });
    const cardReturn = await returnOf(session[card]!);
    // The return's own cost: one workflow of about three dozen events, none added to the payout's.
    const events = (await returnHandle(session[card]!).fetchHistory()).events ?? [];
    expect(events.length).toBeLessThanOrEqual(40);
    expect(cardReturn).toMatchObject({ state: 'returned', payout: { reference: card } });
    expect(cardReturn.proven.map((e) => e.source)).toEqual(['webhook']);

    // The accounts come back two sandbox-days later: one by its statement line only, one by both.
    await sandboxAdmin(stack, `sessions/${session[byStatement]}/return`, { after_days: 2, via: 'statement' });
    await sandboxAdmin(stack, `sessions/${session[byBoth]}/return`, { after_days: 2, via: 'both' });
    await sandboxAdmin(stack, 'clock/advance', { ms: 2 * 86_400_000 + 60_000 });
    const returnDay = moscowDay(await clockNow());
    const bothReturn = await returnOf(session[byBoth]!); // its webhook came first
    expect(bothReturn.proven[0]!.source).toBe('webhook');
    await sandboxAdmin(stack, 'clock/advance', {
      to: new Date(dayStartMs(addDays(returnDay, 1)) + 3_600_000).toISOString(),
    });
    await reconcileDayNow(stack, returnDay, QUICK_WAIT, DEPOSIT_ACCOUNT);
    const statementReturn = await returnOf(session[byStatement]!);
    expect(statementReturn.proven.map((e) => e.source)).toEqual(['statement']);
    expect(statementReturn.proven[0]!.bankWords).toMatch(/^Return of payout /);

    // Both sources of one return made one workflow run, and a later hand-off changes nothing.
    expect(await runsOf(session[byBoth]!)).toBe(1);
    expect(
      await startPayoutReturn(stack.client, stack.taskQueue, session[byBoth]!, {
        source: 'statement',
        account: DEPOSIT_ACCOUNT,
        day: returnDay,
        bankSystemId: 'any',
      }),
    ).toMatchObject({ already: true });

    const returned = [card, byStatement, byBoth];
    // The report, rewritten whole, the one before kept beside it.
    const store = batchStoreFor(paths.dataDir);
    const now = (await store.readFinal(submitted.batchId))!;
    const report = readReport(now.reportPath, false);
    for (const ref of returned) {
      const row = report.find((r) => r.reference === ref)!;
      expect(row.state).toBe('returned');
      expect(existsSync(previousName(now.reportPath, session[ref]!))).toBe(true);
    }
    expect(report.find((r) => r.reference === kept)!.state).toBe('succeeded');
    expect(report.find((r) => r.reference === byStatement)!.reason).toMatch(
      /Return of payout .*\(\d{4}-\d{2}-\d{2}\)/,
    );
    expect(now.summary).toMatch(/возвращено банком получателя/);

    // The payout's status, in Russian by default.
    for (const ref of returned) {
      const shown = (await payoutStatus(stack.client, ref, stack.taskQueue)).join('\n');
      expect(shown).toContain(`${ref}: возвращено банком получателя`);
      expect(shown).toContain('возвращено банком получателя');
    }
    expect((await payoutStatus(stack.client, kept, stack.taskQueue))[0]).toContain(`${kept}: выплачено`);

    // The console says so on each payout's page, to a viewer signed in with a password.
    const password = 'пароль-для-возвратов-1';
    const passwordHash = await hashPassword(password);
    const written = writePolicy(
      stack.people.dir,
      [
        ...TEST_PEOPLE.map((p) => ({ ...p, passwordHash })),
        { id: 'console', name: 'Консоль', roles: ['authenticator'] },
      ],
      NO_APPROVALS,
    );
    const consoleApp = await spawnConsole({
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_LANG: 'ru',
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
    });
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${consoleApp.url}/login`);
      await page.fill('#person', 'viewer');
      await page.fill('#password', password);
      await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
      const shownOn = async (ref: string) => {
        await page.goto(`${consoleApp.url}/payouts?reference=${encodeURIComponent(ref)}`);
        return page.innerText('main');
      };
      for (const ref of returned) expect(await shownOn(ref)).toContain('возвращено банком получателя');
      expect(await shownOn(kept)).not.toContain('возвращено банком получателя');
    } finally {
      await browser.close();
      await consoleApp.stop();
    }

    // The ledger took each income back once; a second take-back is a no-op.
    const view: RecipientView = await ledger().executeUpdate(refreshRecipientUpdate);
    const year = view.years.at(-1)!;
    for (const ref of returned) expect(year.payouts.find((x) => x.reference === ref)?.state).toBe('returned');
    expect(year.paidKopecks).toBe(amounts[kept]);
    expect(
      await ledger().executeUpdate(takeBackIncomeUpdate, {
        args: [{ reference: byBoth, sessionId: session[byBoth]! }],
      }),
    ).toEqual({ ok: true, already: true });
    expect((await ledger().executeUpdate(refreshRecipientUpdate)).years.at(-1)!.paidKopecks).toBe(
      amounts[kept],
    );

    // Each receipt is on the annulment list with the tax service's refund reason.
    const receipts = listReceipts(paths.dataDir);
    expect(receipts.map((r) => r.reference).sort()).toEqual([...returned].sort());
    for (const r of receipts) expect(r).toMatchObject({ state: 'to_annul', reasonCode: 'REFUND' });

    // The inbox's late list holds none of them.
    const inbox = await stack.client.workflow
      .getHandle(`inbox-${stack.taskQueue}`)
      .query(inboxQuery)
      .catch(() => undefined);
    const late = inbox?.late.last.map((e) => e.sessionId) ?? [];
    for (const ref of returned) expect(late).not.toContain(session[ref]);

    // The ERP was told of each return once, signed, and of nothing else (the partial return included).
    await waitFor(async () => receiver.taken.length >= returned.length, wait(), 'the payout.returned events');
    expect(receiver.taken.map((e) => e.event.type)).toEqual(Array(returned.length).fill('payout.returned'));
    expect(receiver.taken.map((e) => e.event.payout?.reference).sort()).toEqual([...returned].sort());
    expect(receiver.taken.every((e) => e.signatureValid)).toBe(true);
    expect(new Set(receiver.taken.map((e) => e.id)).size).toBe(returned.length);
    expect(JSON.stringify(receiver.taken)).not.toContain(PERSON);

    // The sandbox's ledger: one return each, nothing paid twice.
    const entries = stack.sandbox.ledger();
    for (const ref of returned)
      expect(entries.filter((e) => e.kind === 'return' && e.session_id === session[ref])).toHaveLength(1);

    // batch status, as an operator runs it.
    const status = await runCli(['batch', 'status', submitted.batchId], {
      ...stack.cliEnv('viewer'),
      PAYRUN_DATA_DIR: paths.dataDir,
    });
    expect(status.stdout).toContain('возвращено банком получателя: 3');

    // The annulment list as a file, and one receipt recorded annulled by a person, signed.
    const env = { ...stack.cliEnv('preparer'), PAYRUN_DATA_DIR: paths.dataDir };
    const out = `${paths.dataDir}/to-annul.csv`;
    expect((await runCli(['receipts', 'to-annul', '--out', out], env)).code).toBe(0);
    const listed = readFileSync(out, 'utf8').trim().split('\n');
    expect(listed).toHaveLength(4);
    const receipt = receipts.find((r) => r.reference === card)!;
    expect(receipt.receiptId).toBeDefined(); // the bank's receipt of the self-employed payout
    expect(listed.find((l) => l.includes(card))).toContain(',REFUND');
    const viewer = await runCli(['receipts', 'annulled', receipt.receiptId!, '--by', 'viewer'], {
      ...stack.cliEnv('viewer'),
      PAYRUN_DATA_DIR: paths.dataDir,
    });
    expect(viewer.code).not.toBe(0); // a viewer may not
    const done = await runCli(['receipts', 'annulled', receipt.receiptId!, '--by', 'preparer'], env);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toContain('отмечен аннулированным');
    const after = listReceipts(paths.dataDir).find((r) => r.reference === card)!;
    expect(after).toMatchObject({ state: 'annulled', annulled: { person: 'preparer' } });
    expect(after.history.map((h) => h.state)).toEqual(['issued', 'to_annul', 'annulled']);

    // retry-failed pays each returned row once, under its derived reference, and never twice.
    const retryOptions = { paths, taskQueue: stack.taskQueue, submitter: stack.signer('preparer') };
    const retry = await retryFailed(stack.client, submitted.batchId, retryOptions);
    expect(retry.rows).toBe(3);
    await batchHandle(stack, retry.batchId).result();
    for (const ref of returned) {
      expect(paidEntries(stack, `${ref}~r1`)).toHaveLength(1);
      expect(paidEntries(stack, ref).filter((e) => e.recipient_reference === ref)).toHaveLength(1);
      expect((await payoutStatus(stack.client, `${ref}~r1`, stack.taskQueue))[0]).toContain(
        `${ref}~r1: выплачено`,
      );
    }
    await expect(retryFailed(stack.client, submitted.batchId, retryOptions)).rejects.toThrow(/уже|already/);
    const outcomes = await readMergedOutcomes(store, submitted.batchId);
    const returnedRow = [...outcomes.values()].find((o) => o.reference === card)!;
    const [row] = (await readAllRows(store, submitted.batchId)).filter((r) => r.row === returnedRow.row);
    await expect(repayment(stack.client, stack.taskQueue, row!, returnedRow)).rejects.toThrow(
      `${card}: возврат уже выплачен снова под ${card}~r1`,
    );
    for (const ref of returned) expect(paidEntries(stack, `${ref}~r1`)).toHaveLength(1);

    // A return is borrowed by nobody: the same check the batch and the payout make, asked of another
    // batch (one that retries nothing: say a second file with a row of this reference) or another amount.
    const repay = { ...row!.request!, reference: `${card}~r1` };
    const judge = (batchId: string, request = repay) =>
      unprovenRepayment(stack.client, stack.taskQueue, store, batchId, request);
    expect(await judge(retry.batchId)).toBeUndefined();
    expect(await judge(submitted.batchId)).toMatch(/not paid by a batch this one retries/);
    expect(await judge(retry.batchId, { ...repay, amount: repay.amount + 1 })).toMatch(/another amount/);
    // A store writer marking a paid row returned gets it paid again by nobody: no return workflow holds it.
    const keptOutcome = [...outcomes.values()].find((o) => o.reference === kept)!;
    const [keptRow] = (await readAllRows(store, submitted.batchId)).filter((r) => r.row === keptOutcome.row);
    await expect(
      repayment(stack.client, stack.taskQueue, keptRow!, { ...keptOutcome, state: 'returned' }),
    ).rejects.toThrow(`${kept}: возврат не подтверждён банком`);
    // The re-payment reserved its income again in the ledger.
    const again = (await ledger().executeUpdate(refreshRecipientUpdate)).years.at(-1)!;
    expect(again.paidKopecks + again.reservedKopecks).toBe(
      amounts[kept]! + amounts[card]! + amounts[byStatement]! + amounts[byBoth]!,
    );
  });
});
