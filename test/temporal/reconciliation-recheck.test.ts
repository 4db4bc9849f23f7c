import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as iconv from 'iconv-lite';
import { Registry } from 'prom-client';
import { reconcileStatus } from '../../src/cli/reconcile';
import { registerReconciliationMetrics } from '../../src/metrics/reconciliation';
import { addDays, dayStartMs, moscowDay } from '../../src/reconcile/days';
import { TEST_INNS } from '../../src/sandbox/test-values';
import type { PayoutRequest } from '../../src/domain';
import type { PayoutStatus } from '../../workflows/payout/contract';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { QUICK_WAIT, readDayReport, reconcileDayNow, sandboxAdmin } from '../harness/reconciliation';
import { startStack, type Stack } from '../harness/stack';

/**
 * 1CClientBankExchange 1.03 read back from the format alone (Windows-1251, CRLF, `Key=Value`, documents
 * between `СекцияДокумент=` and `КонецДокумента`): nothing of payrun's exporter is used.
 */
function oneCDocuments(file: Buffer): {
  account: Record<string, string>;
  documents: Record<string, string>[];
} {
  const lines = iconv.decode(file, 'win1251').split('\r\n');
  expect(lines[0]).toBe('1CClientBankExchange');
  const account: Record<string, string> = {};
  const documents: Record<string, string>[] = [];
  let section: Record<string, string> | undefined;
  for (const line of lines) {
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    const value = eq < 0 ? '' : line.slice(eq + 1);
    if (key === 'СекцияРасчСчет') section = account;
    else if (key === 'СекцияДокумент') documents.push((section = {}));
    else if (key === 'КонецРасчСчет' || key === 'КонецДокумента') section = undefined;
    else if (section) section[key] = value;
  }
  return { account, documents };
}
const kopecks = (v: string | undefined) => {
  expect(v).toMatch(/^\d+\.\d{2}$/);
  return Math.round(Number(v) * 100);
};

// Issue 37: a re-run re-matches the day as the bank gives it now; amount alone pairs nothing; a day
// without a statement is listed and counted; the 1C file names the people payrun paid.
// A deposit account of this file's own: reconciliation workflow ids name the account and the day, and
// the other reconciliation suites on the shared dev server reconcile the default account's same days.
const DEPOSIT_ACCOUNT = '40702810700000000077';

describe('reconciliation that re-checks', () => {
  let stack: Stack;
  let dataDir: string;
  let day: string;
  const paid: Record<string, { request: PayoutRequest; status: PayoutStatus }> = {};

  const pay = async (name: string, overrides: Partial<PayoutRequest>) => {
    const request = payoutRequest({ selfEmployed: false, ...overrides });
    const status = await outcome(await startPayout(stack, request));
    expect(status.state).toBe('succeeded');
    paid[name] = { request, status };
  };
  const session = (name: string) => paid[name]!.status.bank.sessionId!;
  const ref = (name: string) => paid[name]!.request.reference;
  const clockTo = (ms: number) => sandboxAdmin(stack, 'clock/advance', { to: new Date(ms).toISOString() });
  const found = (r: ReturnType<typeof readDayReport>) =>
    r.found.map((f) => `${f.kind} ${f.reference ?? f.bankSystemId ?? ''}`).sort();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payrun-recheck-'));
    process.env.PAYRUN_DATA_DIR = dataDir;
    stack = await startStack({ sandbox: { accounts: { deposit: DEPOSIT_ACCOUNT } } });
    day = moscowDay((await sandboxAdmin(stack, 'clock')).now_ms as number);
  });
  afterAll(async () => stack?.stop());

  it('a day reconciled clean, then its statement changed to omit a payout: the re-run reports both', async () => {
    await pay('card', { amount: 4_710_263 });
    await pay('account', {
      amount: 120_000,
      method: { type: 'bank_account', bik: '044525225', account: '40817810300000123456' },
      recipient: { lastName: 'Петров', firstName: 'Иван', taxReference: TEST_INNS.NOT_SELF_EMPLOYED },
    });
    await clockTo(dayStartMs(addDays(day, 1)) + 3_600_000);
    const clean = await reconcileDayNow(stack, day, QUICK_WAIT, DEPOSIT_ACCOUNT);
    expect(clean).toMatchObject({ outcome: 'reconciled', found: 0 });

    // The 1C file names each person payrun paid, read back by the parser above.
    const report = readDayReport(clean);
    const { account, documents } = oneCDocuments(readFileSync(clean.files!.oneC));
    for (const name of ['card', 'account']) {
      const { request } = paid[name]!;
      const doc = documents.find((d) => d.НазначениеПлатежа?.includes(`payrun ${request.reference}`));
      expect(doc).toMatchObject({
        ПолучательИНН: request.recipient.taxReference,
        Получатель: [request.recipient.lastName, request.recipient.firstName, request.recipient.middleName]
          .filter(Boolean)
          .join(' '),
        ПлательщикСчет: DEPOSIT_ACCOUNT,
      });
    }
    const byRef = (r: string) => documents.find((d) => d.НазначениеПлатежа?.includes(`payrun ${r}`))!;
    expect(byRef(ref('account')).ПолучательСчет).toBe('40817810300000123456');
    expect(byRef(ref('card')).НазначениеПлатежа).toMatch(/карта 220000\*{6}0012/);
    const debits = documents.filter((d) => d.ПлательщикСчет === DEPOSIT_ACCOUNT);
    expect(debits.reduce((s, d) => s + kopecks(d.Сумма), 0)).toBe(report.totals.debet);
    expect(kopecks(account.ВсегоСписано)).toBe(report.totals.debet);
    expect(kopecks(account.КонечныйОстаток)).toBe(report.totals.closing);

    await sandboxAdmin(stack, 'statement-faults', {
      faults: [{ kind: 'omit', session_id: session('card') }],
    });
    const rerun = readDayReport(await reconcileDayNow(stack, day, QUICK_WAIT, DEPOSIT_ACCOUNT));
    expect(found(rerun)).toEqual(
      [
        `missing_from_statement ${ref('card')}`,
        `statement_changed ${ref('card')}`,
        'statement_changed ', // the closing balance moved with it
      ].sort(),
    );
    const moved = rerun.found.find((f) => f.kind === 'statement_changed' && f.reference)!;
    expect(moved).toMatchObject({ sessionId: session('card'), state: 'open' });
    expect(moved.detail).toContain('47 102,63');
    // A third run over the same corrected statement finds nothing new.
    const third = await reconcileDayNow(stack, day, QUICK_WAIT, DEPOSIT_ACCOUNT);
    expect(
      readDayReport(third)
        .found.map((f) => f.kind)
        .sort(),
    ).toEqual(['missing_from_statement']);
  });

  it('an omitted card payout and an outside debit of the same amount are two differences', async () => {
    await pay('unbooked', { amount: 333_333 });
    await sandboxAdmin(stack, 'statement-faults', {
      faults: [
        { kind: 'omit', session_id: session('card') },
        { kind: 'omit', session_id: session('unbooked') },
      ],
    });
    const outside = (await sandboxAdmin(stack, 'outside-payout', { amount: 333_333, session: false })) as {
      bank_system_id: string;
    };
    await clockTo(dayStartMs(addDays(day, 2)) + 3_600_000);
    const result = readDayReport(await reconcileDayNow(stack, addDays(day, 1), QUICK_WAIT, DEPOSIT_ACCOUNT));
    expect(found(result)).toEqual(
      [`missing_from_statement ${ref('unbooked')}`, `unknown_to_payrun ${outside.bank_system_id}`].sort(),
    );
    expect(result.matched).toEqual([]);
  });

  it('a day with no statement shows in reconcile status and in the metric', async () => {
    const d2 = addDays(day, 2);
    stack.sandbox.setFaults({
      http: [{ kind: 'error_before', paths: ['/api/v1/report/account_statement'] }],
    });
    try {
      const none = await reconcileDayNow(
        stack,
        d2,
        { initialIntervalMs: 200, maximumIntervalMs: 200, maxWaitMs: 2_000 },
        DEPOSIT_ACCOUNT,
      );
      expect(none.outcome).toBe('statement_unavailable');
    } finally {
      stack.sandbox.setFaults({});
    }
    const today = addDays(day, 5);
    const status = await reconcileStatus(dataDir, today, 'en');
    expect(status[0]).toMatch(
      new RegExp(
        `^${DEPOSIT_ACCOUNT}: reconciled up to ${addDays(day, 1)}, .*, 2 day\\(s\\) not reconciled$`,
      ),
    );
    expect(status).toContain(
      `  ${addDays(day, 3)} not reconciled: never run; payrun reconcile day ${addDays(day, 3)} --account ${DEPOSIT_ACCOUNT}`,
    );
    expect(status.find((l) => l.startsWith(`  ${d2} not reconciled: no statement (`))).toMatch(
      /internal_error/,
    );
    const registry = new Registry();
    registerReconciliationMetrics(
      registry,
      () => dataDir,
      () => today,
    );
    expect(await registry.metrics()).toContain(
      `payrun_reconciliation_days_unreconciled{account="${DEPOSIT_ACCOUNT}"} 2`,
    );
  });
});
