import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BankClient } from '../../src/bank';
import {
  dryRunBatch,
  dryRunProgressReporter,
  formatDryRun,
  NPD_CONCURRENCY,
  type DryRunProgress,
} from '../../src/batch/commands/dry-run';
import { TEST_CARDS, TEST_INNS, type RunningSandbox } from '../../src/sandbox';
import { inn12 } from '../harness/csv-rows';
import { partnerKeys, PROJECT, silentLogger, startTestSandbox, waitFor } from '../sandbox/signed-client';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

/** The dry run's tax-number checks at scale, against the real sandbox over signed HTTP. */

const DISTINCT = 200;
/** Sandbox time a check stays pending: the test lets the tax service answer by moving the clock. */
const PENDING_MS = 60_000;

let sb: RunningSandbox;
let bank: BankClient;
let dir: string;

beforeAll(async () => {
  ({ sb } = await startTestSandbox({ timings: { npdPendingMs: PENDING_MS } }));
  bank = new BankClient({
    baseUrl: sb.url,
    project: PROJECT,
    privateKeyPem: partnerKeys().privateKey,
    apiVersion: 1,
    logger: silentLogger,
  });
  dir = mkdtempSync(join(tmpdir(), 'payrun-dry-run-'));
});
afterAll(async () => {
  await bank.close();
  await sb.close();
});

function batchFile(rows: { reference: string; inn: string; selfEmployed: boolean }[]): string {
  const header =
    'reference,last_name,first_name,inn,method,card_number,amount,currency,service_name,self_employed';
  const lines = rows.map((r) =>
    [
      r.reference,
      'Ivanova',
      'Anna',
      r.inn,
      'card',
      TEST_CARDS.SUCCESS,
      '10.00',
      'RUB',
      'Design',
      r.selfEmployed ? 'yes' : 'no',
    ].join(','),
  );
  const file = join(dir, `batch-${rows.length}.csv`);
  writeFileSync(file, [header, ...lines].join('\n') + '\n');
  return file;
}

test('many distinct tax numbers: checked side by side up to the bound, progress rising by one to the total', async () => {
  const inns = Array.from({ length: DISTINCT }, (_, i) => inn12(`63${String(i).padStart(8, '0')}`));
  expect(new Set(inns).size).toBe(DISTINCT);
  const file = batchFile([
    ...inns.map((inn, i) => ({ reference: `se-${i}`, inn, selfEmployed: true })),
    // the same tax number again: checked once
    { reference: 'se-again', inn: inns[0]!, selfEmployed: true },
    { reference: 'not-se', inn: TEST_INNS.NOT_SELF_EMPLOYED, selfEmployed: true },
    { reference: 'plain', inn: inn12('6399999999'), selfEmployed: false },
  ]);
  const total = DISTINCT + 1;
  const checks = () => Object.values(sb.sandbox.state.npdRequests).filter((r) => r.origin === 'check').length;

  const progress: DryRunProgress[] = [];
  const done = () => progress.at(-1)?.done ?? 0;
  let finished = false;
  const run = dryRunBatch(bank, file, {
    paths: { dataDir: dir, batchesDir: dir },
    onProgress: (p) => progress.push(p),
  }).finally(() => (finished = true));

  // While the sandbox clock stands still every check stays pending, so the lanes fill up and wait:
  // then exactly the checks in flight are there to count. Moving the clock answers them all.
  let inFlightMax = 0;
  while (!finished) {
    await waitFor(() => finished || checks() - done() === Math.min(NPD_CONCURRENCY, total - done()), 60_000);
    if (finished) break;
    inFlightMax = Math.max(inFlightMax, checks() - done());
    const before = done();
    await sb.advance(PENDING_MS);
    await waitFor(() => finished || done() > before, 60_000);
  }
  const report = await run;

  expect(inFlightMax).toBe(NPD_CONCURRENCY);
  expect(progress.map((p) => p.total)).toEqual(progress.map(() => total));
  expect(progress.map((p) => p.done)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
  expect(checks()).toBe(total);
  expect(report.taxNumbersChecked).toBe(total);
  expect(report.rows).toHaveLength(DISTINCT + 3);
  expect(report.rows.filter((r) => !r.pay).map((r) => [r.reference, r.why])).toEqual([
    ['not-se', 'the recipient is not a professional income taxpayer (not_self_employed)'],
  ]);
  expect(formatDryRun(report).slice(-2)).toEqual([
    expect.stringMatching(new RegExp(`^would pay ${DISTINCT + 2} of ${DISTINCT + 3} rows, `)),
    `checked ${total} tax numbers with the bank; no payment session was created`,
  ]);
});

test('when the taxpayer workflows leave a tax number unanswered (no worker), the bank is asked directly, and for every later one', async () => {
  const inns = [inn12('6377777771'), inn12('6377777772'), inn12('6377777773')];
  const file = batchFile(inns.map((inn, i) => ({ reference: `wf-${i}`, inn, selfEmployed: true })));
  const checks = () => Object.values(sb.sandbox.state.npdRequests).filter((r) => r.origin === 'check').length;
  const before = checks();
  const asked: string[] = [];
  let finished = false;
  const run = dryRunBatch(bank, file, {
    paths: { dataDir: dir, batchesDir: dir },
    concurrency: 1,
    checkTaxpayer: async (ask) => {
      asked.push(ask.reference);
      return undefined;
    },
  }).finally(() => (finished = true));
  while (!finished) {
    await waitFor(() => finished || checks() > before, 60_000);
    await sb.advance(PENDING_MS);
    await new Promise((r) => setImmediate(r));
  }
  const report = await run;
  expect(asked).toEqual(['wf-0']);
  expect(checks() - before).toBe(3);
  expect(report.rows.map((r) => r.pay)).toEqual([true, true, true]);
});

test('a file with no self-employed row reports 0 of 0 and checks nothing', async () => {
  const before = Object.keys(sb.sandbox.state.npdRequests).length;
  const progress: DryRunProgress[] = [];
  const report = await dryRunBatch(
    bank,
    batchFile([{ reference: 'p-1', inn: inn12('6388888888'), selfEmployed: false }]),
    { paths: { dataDir: dir, batchesDir: dir }, onProgress: (p) => progress.push(p) },
  );
  expect(progress).toEqual([{ done: 0, total: 0 }]);
  expect(report.taxNumbersChecked).toBe(0);
  expect(Object.keys(sb.sandbox.state.npdRequests)).toHaveLength(before);
});

describe('progress on stderr', () => {
  const run = (total: number, stream: { write(s: string): unknown; isTTY?: boolean }, msPerCheck = 10) => {
    let clock = 1_000_000;
    const reporter = dryRunProgressReporter(stream, () => clock);
    reporter.onProgress({ done: 0, total });
    for (let done = 1; done <= total; done++) {
      clock += msPerCheck;
      reporter.onProgress({ done, total });
    }
    reporter.stop();
  };

  test('not a terminal: a start line, then a line every 10 %', () => {
    const lines: string[] = [];
    run(2_000, { write: (s) => lines.push(s) });
    expect(lines[0]).toBe('checking 2000 tax numbers with the bank\n');
    expect(lines.slice(1).map((l) => l.match(/^checked (\d+) of 2000/)?.[1])).toEqual([
      '200',
      '400',
      '600',
      '800',
      '1000',
      '1200',
      '1400',
      '1600',
      '1800',
      '2000',
    ]);
    // 200 checks in 2 s, 1 800 left
    expect(lines[1]).toBe('checked 200 of 2000 tax numbers (10 %), about 18 s left\n');
    expect(lines.at(-1)).toBe('checked 2000 of 2000 tax numbers (100 %)\n');
  });

  test('not a terminal, 50 000 checks: a line every 500 (not every 10 %)', () => {
    const lines: string[] = [];
    run(50_000, { write: (s) => lines.push(s) }, 72);
    expect(lines).toHaveLength(1 + 100);
    expect(lines[1]).toBe('checked 500 of 50000 tax numbers (1 %), about 1 h 00 min left\n');
    expect(lines[2]).toMatch(/^checked 1000 of 50000 tax numbers \(2 %\), about 59 min left\n$/);
    expect(lines[60]).toMatch(/^checked 30000 of 50000 .*about 24 min left\n$/);
    expect(lines.at(-1)).toBe('checked 50000 of 50000 tax numbers (100 %)\n');
  });

  test('nothing to check, nothing printed', () => {
    const lines: string[] = [];
    run(0, { write: (s) => lines.push(s) });
    run(0, { write: (s) => lines.push(s), isTTY: true });
    expect(lines).toEqual([]);
  });

  test('a terminal: a live bar with counts and an ETA, ended at the total', () => {
    let out = '';
    run(300, { write: (s) => (out += s), isTTY: true });
    expect(out).toContain('tax number checks');
    expect(out).toContain('300/300');
    expect(out).toContain('ETA');
  });
});
