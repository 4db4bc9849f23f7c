import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as iconv from 'iconv-lite';
import { parse } from 'csv-parse/sync';
import { reconcileStatus } from '../../src/cli/reconcile';
import { addDays, dayStartMs, moscowDay } from '../../src/reconcile/days';
import { reconcileStoreFor } from '../../src/reconcile/store/open';
import { writePolicy } from '../../src/policy/generate';

const readDifferences = (dataDir: string, account: string) =>
  reconcileStoreFor(dataDir).readDifferences(account);
import type { PayoutStatus } from '../../workflows/payout/contract';
import { runCli } from '../harness/cli-process';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import {
  DEPOSIT_ACCOUNT,
  readDayReport,
  reconcileDayNow,
  sandboxAdmin,
  bankCalls,
} from '../harness/reconciliation';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/**
 * 1CClientBankExchange read back from the format's description alone (1C's exchange standard 1.03):
 * Windows-1251 text, CRLF lines, the marker first, header `Key=Value` lines, one СекцияРасчСчет …
 * КонецРасчСчет, documents СекцияДокумент=… … КонецДокумента, and КонецФайла last. Amounts are roubles
 * with a dot. Nothing of payrun's export code is used here.
 */
function parseOneC(file: Buffer) {
  const lines = iconv.decode(file, 'win1251').split('\r\n');
  expect(lines[0]).toBe('1CClientBankExchange');
  expect(lines.at(-1)).toBe('');
  expect(lines.at(-2)).toBe('КонецФайла');
  const header: Record<string, string> = {};
  const account: Record<string, string> = {};
  const documents: Record<string, string>[] = [];
  let section: Record<string, string> = header;
  for (const line of lines.slice(1, -2)) {
    const eq = line.indexOf('=');
    const [key, value] = eq < 0 ? [line, ''] : [line.slice(0, eq), line.slice(eq + 1)];
    if (key === 'СекцияРасчСчет') section = account;
    else if (key === 'КонецРасчСчет' || key === 'КонецДокумента') section = {};
    else if (key === 'СекцияДокумент') documents.push((section = { Вид: value }));
    else section[key] = value;
  }
  const kopecks = (v: string | undefined) => {
    expect(v).toMatch(/^\d+\.\d{2}$/);
    return Math.round(Number(v) * 100);
  };
  return { header, account, documents, kopecks };
}

describe('daily reconciliation with the bank statement', () => {
  let stack: Stack;
  let dataDir: string;
  let day: string; // D: the sandbox's day before the midnight it starts near
  const paid: Record<string, PayoutStatus> = {};

  const pay = async (name: string, amount: number) => {
    const status = await outcome(await startPayout(stack, payoutRequest({ amount, selfEmployed: false })));
    expect(status.state).toBe('succeeded');
    paid[name] = status;
    return status;
  };
  const session = (name: string) => paid[name]!.bank.sessionId!;
  const ref = (name: string) => paid[name]!.reference;
  const clockTo = (iso: string) => sandboxAdmin(stack, 'clock/advance', { to: iso });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-'));
    process.env.PAYRUN_DATA_DIR = dataDir;
    // The sandbox clock starts 10 minutes before a Moscow midnight: D's payout before it, D+1's after.
    const midnight = dayStartMs(addDays(moscowDay(Date.now() + 60_000), 1));
    stack = await startStack({ sandbox: { clock: { startAt: new Date(midnight - 600_000).toISOString() } } });
    day = moscowDay(midnight - 1);
  });
  afterAll(async () => stack?.stop());

  it('a clean day has zero differences, and a day crossing Moscow midnight is split by the bank dates', async () => {
    await pay('p1', 111_100);
    await clockTo(new Date(dayStartMs(addDays(day, 1)) + 60_000).toISOString());
    await pay('p2', 222_200);

    const d = await reconcileDayNow(stack, day);
    expect(d).toMatchObject({ outcome: 'reconciled', found: 0, open: 0 });
    const report = readDayReport(d);
    expect(report.matched.map((m) => m.reference)).toEqual([ref('p1')]);
    expect(report.payoutsMatched).toEqual({ count: 1, amount: 111_100 });
    expect(report.totals.closing).toBe(report.totals.opening - 111_100);
  });

  it('each planted difference is reported once, with its reference', async () => {
    for (const [name, amount] of [
      ['p3', 333_300],
      ['p4', 444_400],
      ['p5', 555_500],
      ['p6', 666_600],
    ] as const)
      await pay(name, amount);
    const outside = (await sandboxAdmin(stack, 'outside-payout', { amount: 77_700 })) as {
      bank_system_id: string;
    };
    await sandboxAdmin(stack, 'statement-faults', {
      faults: [
        { kind: 'omit', session_id: session('p3') },
        { kind: 'amount', session_id: session('p4'), amount: 440_000 },
        { kind: 'late', session_id: session('p5'), days: 1 },
        {
          kind: 'not_ready',
          date: addDays(day, 2),
          until: new Date(dayStartMs(addDays(day, 3)) + 1_800_000).toISOString(),
        },
        { kind: 'balance', date: addDays(day, 2), shift: 100 },
      ],
    });
    const d1 = addDays(day, 1);
    const first = await reconcileDayNow(stack, d1);
    const report = readDayReport(first);
    expect(report.found.map((f) => `${f.kind} ${f.reference ?? f.bankSystemId}`).sort()).toEqual(
      [
        `amount_differs ${ref('p4')}`,
        `missing_from_statement ${ref('p3')}`,
        `missing_from_statement ${ref('p5')}`,
        `unknown_to_payrun ${outside.bank_system_id}`,
      ].sort(),
    );
    expect(report.found.find((f) => f.kind === 'amount_differs')).toMatchObject({
      payrunAmount: 444_400,
      bankAmount: 440_000,
      sessionId: session('p4'),
    });
    // p1 was D's; p2 (just after midnight) and the rest are D+1's.
    expect(report.matched.map((m) => m.reference).sort()).toEqual([ref('p2'), ref('p4'), ref('p6')].sort());
    // Again: the same differences, none twice.
    const again = await reconcileDayNow(stack, d1);
    expect(again.open).toBe(4);
    expect(Object.keys(await readDifferences(dataDir, DEPOSIT_ACCOUNT)).sort()).toEqual(
      report.found.map((f) => f.key).sort(),
    );
  });

  it('the 1C export parses back and its totals equal the report', async () => {
    const d1 = await reconcileDayNow(stack, addDays(day, 1));
    const report = readDayReport(d1);
    const { header, account, documents, kopecks } = parseOneC(readFileSync(d1.files!.oneC));
    expect(header).toMatchObject({ ВерсияФормата: '1.03', Кодировка: 'Windows', РасчСчет: DEPOSIT_ACCOUNT });
    expect(kopecks(account.НачальныйОстаток)).toBe(report.totals.opening);
    expect(kopecks(account.КонечныйОстаток)).toBe(report.totals.closing);
    const debits = documents.filter((doc) => doc.ПлательщикСчет === DEPOSIT_ACCOUNT);
    const credits = documents.filter((doc) => doc.ПолучательСчет === DEPOSIT_ACCOUNT);
    expect(debits.length + credits.length).toBe(documents.length);
    const sum = (docs: Record<string, string>[]) => docs.reduce((s, doc) => s + kopecks(doc.Сумма), 0);
    expect(sum(debits)).toBe(report.totals.debet);
    expect(kopecks(account.ВсегоСписано)).toBe(report.totals.debet);
    expect(sum(credits)).toBe(report.totals.credit);
    // The payouts payrun matched carry their reference, and add up to the report's payouts.
    const ours = debits.filter((doc) => / payrun /.test(doc.НазначениеПлатежа ?? ''));
    expect(sum(ours)).toBe(report.payoutsMatched.amount);
    expect(documents.every((doc) => doc.Дата === addDays(day, 1).split('-').reverse().join('.'))).toBe(true);
    // The CSV report is accounting's: Windows-1251, ';', money as 1234,56 (a number to Russian Excel).
    const csv = parse(iconv.decode(readFileSync(d1.files!.csv), 'win1251'), { delimiter: ';' }) as string[][];
    expect(csv[0]![0]).toBe('Дата');
    expect(csv.some((row) => row[3] === ref('p4') && row[6] === '4444,00' && row[7] === '4400,00')).toBe(
      true,
    );
  });

  it('a late statement is waited for; the late line closes the open difference; a return days later is found', async () => {
    const d2 = addDays(day, 2);
    await clockTo(new Date(dayStartMs(d2) + 10 * 3600_000).toISOString());
    await sandboxAdmin(stack, `sessions/${session('p6')}/return`, {});
    // The statement first fails outright, then is "not ready" until 00:30 the next day.
    stack.sandbox.setFaults({
      http: [{ kind: 'error_before', paths: ['/api/v1/report/account_statement'], times: 1 }],
    });
    const before = await bankCalls(stack);
    const statusBefore = await bankCalls(stack, 'session/status');
    const running = reconcileDayNow(stack, d2);
    await waitFor(async () => (await bankCalls(stack)) >= before + 3, 60_000, 'the statement asked again');
    await clockTo(new Date(dayStartMs(addDays(day, 3)) + 3_600_000).toISOString());
    const result = await running;
    expect(result.outcome).toBe('reconciled');
    // Dating payouts: only p3 is asked about (still missing); p5 is named by its line, the rest matched before.
    expect((await bankCalls(stack, 'session/status')) - statusBefore).toBe(1);
    const report = readDayReport(result);
    expect(report.found.map((f) => `${f.kind} ${f.reference ?? ''}`).sort()).toEqual(
      [`balance_mismatch `, `returned ${ref('p6')}`].sort(),
    );
    expect(report.settled).toEqual([
      expect.objectContaining({ key: `missing_from_statement:${session('p5')}`, day: d2 }),
    ]);
    const all = await readDifferences(dataDir, DEPOSIT_ACCOUNT);
    expect(all[`missing_from_statement:${session('p5')}`]).toMatchObject({
      state: 'matched',
      day: addDays(day, 1),
    });
    expect(all[`missing_from_statement:${session('p3')}`]).toMatchObject({ state: 'open' });
  });

  it('a statement that keeps failing leaves the day unreconciled, to be tried again', async () => {
    stack.sandbox.setFaults({
      http: [{ kind: 'error_before', paths: ['/api/v1/report/account_statement'] }],
    });
    try {
      const result = await reconcileDayNow(stack, addDays(day, 3), {
        initialIntervalMs: 200,
        maximumIntervalMs: 200,
        maxWaitMs: 2_000,
      });
      expect(result).toMatchObject({ outcome: 'statement_unavailable', day: addDays(day, 3) });
      expect(result.error).toMatch(/internal_error/);
    } finally {
      stack.sandbox.setFaults({});
    }
  });

  it('status lists open differences with what to do; a proven person resolves one with a reason', async () => {
    const lines = await reconcileStatus(dataDir, addDays(day, 3), 'en');
    expect(lines[0]).toMatch(new RegExp(`^${DEPOSIT_ACCOUNT}: reconciled up to ${addDays(day, 2)}, 5 open`));
    const key = `missing_from_statement:${session('p3')}`;
    expect(lines.join('\n')).toContain(key);
    const env = { ...stack.cliEnv('approver'), PAYRUN_DATA_DIR: dataDir };
    const viewer = await runCli(['reconcile', 'resolve', DEPOSIT_ACCOUNT, key, '--reason', 'x'], {
      ...stack.cliEnv('viewer'),
      PAYRUN_DATA_DIR: dataDir,
    });
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toMatch(/viewer не может закрывать расхождения сверки/);
    // Issue 34: a person only her own policy file lists, pointed at by PAYRUN_POLICY_FILE, is judged by
    // the worker under the worker's policy file, and refused: the difference stays open.
    const ownDir = mkdtempSync(join(tmpdir(), 'payrun-own-policy-'));
    const own = writePolicy(ownDir, [{ id: 'intruder', name: 'Ева Своя', roles: ['approver'] }]);
    const intruder = await runCli(['reconcile', 'resolve', DEPOSIT_ACCOUNT, key, '--reason', 'x'], {
      ...env,
      PAYRUN_POLICY_FILE: own.file,
      PAYRUN_PERSON: 'intruder',
      PAYRUN_KEY_FILE: own.keyFiles.intruder,
    });
    expect(intruder.code).toBe(1);
    // The worker's refusal, said again from the catalogue (Russian by default).
    expect(intruder.stderr).toMatch(/intruder нет среди людей в файле правил/);
    expect((await readDifferences(dataDir, DEPOSIT_ACCOUNT))[key]).toMatchObject({ state: 'open' });
    const noReason = await runCli(['reconcile', 'resolve', DEPOSIT_ACCOUNT, key], env);
    expect(noReason.code).toBe(2);
    const ok = await runCli(
      ['reconcile', 'resolve', DEPOSIT_ACCOUNT, key, '--reason', 'банк подтвердил письмом'],
      env,
    );
    expect(ok).toMatchObject({ code: 0 });
    // Recorded with its evidence: the approver's signed statement and the worker's policy version.
    const resolved = (await readDifferences(dataDir, DEPOSIT_ACCOUNT))[key]!;
    expect(resolved).toMatchObject({
      state: 'resolved',
      resolved: {
        by: 'approver',
        reason: 'банк подтвердил письмом',
        statement: {
          statement: { kind: 'difference', decision: 'resolve', key, person: 'approver' },
          signature: expect.stringMatching(/^[0-9a-f]{128}$/),
        },
        policyVersion: expect.any(String),
      },
    });
    expect((await reconcileStatus(dataDir, addDays(day, 3), 'en'))[0]).toMatch(/4 open/);
  });
});
