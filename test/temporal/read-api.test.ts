import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { hashPassword } from '../../src/console/passwords';
import { writePolicy, type PersonSpec } from '../../src/policy/generate';
import { addDays, dayStartMs, moscowDay } from '../../src/reconcile/days';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import {
  batchCsv,
  batchHandle,
  dropAndSubmit,
  freshInn,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { workTimeout } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { ConsoleBrowser } from '../harness/console-http';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { QUICK_WAIT, reconcileDayNow, sandboxAdmin } from '../harness/reconciliation';
import { NO_APPROVALS, startStack, TEST_PEOPLE, type Stack } from '../harness/stack';

/**
 * Issue 41's read API (docs/api.md) on the real stack: `payrun console` as its own process, tokens made by
 * `payrun api token`, a paid batch with a declined row, a person's ledger and a reconciliation difference.
 * Every answer is validated against the OpenAPI document the console serves (with Ajv, not the schemas that
 * made it); each role reads what docs/api.md says and nothing else; nothing moves money; no answer holds a
 * full card or account number.
 */
const PASSWORD = 'пароль-для-api-1';
const ACCOUNT = '40702810700000000083';
const SETUP = workTimeout({ units: 1, perUnitMs: 120_000, floorMs: 240_000 });
const PER_MINUTE = 40;

let stack: Stack;
let consoleApp: ConsoleProcess;
let dataDir: string;
let tokensFile: string;
const tokens: Record<string, string> = {};
let batchId = '';
let inn = '';
let prefix = '';
let validate: (schema: string, body: unknown) => string | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'payrun-api-'));
  process.env.PAYRUN_DATA_DIR = dataDir;
  stack = await startStack({ sandbox: { accounts: { deposit: ACCOUNT } } });
  const passwordHash = await hashPassword(PASSWORD);
  const people: PersonSpec[] = [
    ...TEST_PEOPLE.map((p) => ({ ...p, passwordHash })),
    { id: 'console', name: 'Консоль', roles: ['authenticator'] },
  ];
  const written = writePolicy(stack.people.dir, people, NO_APPROVALS);
  tokensFile = join(dataDir, 'api-tokens');
  const env = { ...stack.workerEnv, PAYRUN_POLICY_FILE: written.file, PAYRUN_DATA_DIR: dataDir };
  for (const person of ['watcher', 'viewer', 'approver', 'approver2']) {
    const made = await runCli(['api', 'token', '--person', person, '--file', tokensFile], env);
    expect({ code: made.code, stderr: made.stderr }).toMatchObject({ code: 0 });
    expect(made.stderr).toMatch(new RegExp(`^токен для ${person} добавлен в .*; читает: payouts, batches`));
    tokens[person] = made.stdout.trim();
  }
  consoleApp = await spawnConsole({
    ...env,
    PAYRUN_BATCHES_DIR: join(dataDir, 'batches'),
    PAYRUN_LANG: 'ru',
    PAYRUN_CONSOLE_SERVICE_ID: 'console',
    PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
    PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'optional',
    PAYRUN_API_TOKENS_FILE: tokensFile,
    PAYRUN_API_PER_MINUTE: String(PER_MINUTE),
  });

  // The document the console serves, compiled by a validator of its own.
  const doc = (await (await fetch(`${consoleApp.url}/api/v1/openapi.json`)).json()) as {
    openapi: string;
    components: { schemas: Record<string, object> };
  };
  expect(doc.openapi).toBe('3.1.0');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'payrun', components: doc.components } as object);
  validate = (schema, body) => {
    const check = ajv.getSchema(`payrun#/components/schemas/${schema}`)!;
    return check(body) ? undefined : ajv.errorsText(check.errors);
  };

  // A batch: a self-employed person paid, a declined card, a company's employee paid.
  prefix = uniquePrefix();
  inn = freshInn(Number.parseInt(prefix.slice(1, 7), 16) % 100_000_000);
  const paths = { dataDir, batchesDir: join(dataDir, 'batches') };
  const { batchFolders } = await import('../../src/batch/services/folders');
  batchFolders(paths.batchesDir);
  const r = await dropAndSubmit(
    stack,
    paths,
    `${prefix}.csv`,
    batchCsv(
      [
        { reference: `${prefix}-1`, inn },
        { reference: `${prefix}-2`, card: TEST_CARDS.DECLINED_BY_ISSUER, selfEmployed: false },
        { reference: `${prefix}-3`, selfEmployed: false, amount: '2 000,00' },
      ],
      { win1251: true },
    ),
  );
  if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
  batchId = r.batchId;
  await waitForProgress(batchHandle(stack, batchId), (p) => p.phase === 'done', SETUP);

  // An outside debit on the deposit the same day: one open difference.
  const day = moscowDay((await sandboxAdmin(stack, 'clock')).now_ms as number);
  await sandboxAdmin(stack, 'outside-payout', { amount: 777_700, session: false });
  await sandboxAdmin(stack, 'clock/advance', {
    to: new Date(dayStartMs(addDays(day, 1)) + 3_600_000).toISOString(),
  });
  expect(await reconcileDayNow(stack, day, QUICK_WAIT, ACCOUNT)).toMatchObject({ found: 1 });
}, SETUP);

afterAll(async () => {
  await consoleApp?.stop();
  await stack?.stop();
});

/** Every answer that is asked through here is checked against the served document. */
async function ask(path: string, token: string | undefined, init: RequestInit = {}) {
  const res = await fetch(`${consoleApp.url}/api/v1${path}`, {
    ...init,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as object) },
    redirect: 'manual',
  });
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  const problem = validate(res.status === 200 ? schemaOf(path) : 'Error', body);
  expect({ path, status: res.status, problem }).toEqual({ path, status: res.status, problem: undefined });
  return { status: res.status, body, text };
}
const schemaOf = (path: string) =>
  path.startsWith('/payouts/')
    ? 'Payout'
    : path.startsWith('/batches/')
      ? 'Batch'
      : path.startsWith('/recipient-year')
        ? 'RecipientYear'
        : 'Differences';

/**
 * No full card number of the file, no full deposit account; no INN either but in a fiscal receipt's address,
 * which names it and is shown only to roles that may read a person by INN (docs/api.md).
 */
function expectNoFullNumbers(text: string, receipts: boolean) {
  for (const n of [TEST_CARDS.SUCCESS, TEST_CARDS.DECLINED_BY_ISSUER, ACCOUNT]) expect(text).not.toContain(n);
  const withoutReceipts = text.replace(/https:\/\/lknpd\.nalog\.ru\/api\/v1\/receipt\/\d+\/\d+\/print/g, '');
  expect(withoutReceipts).not.toContain(inn);
  if (!receipts) expect(text).not.toContain('lknpd.nalog.ru');
}

test('a service reads a batch page by page and by state, a payout and a person’s year', async () => {
  const service = tokens.watcher!;
  const whole = await ask(`/batches/${batchId}`, service);
  expect(whole.status).toBe(200);
  expect(whole.body).toMatchObject({
    batchId,
    phase: 'done',
    rows: 3,
    totalKopecks: 500_000,
    counts: { succeeded: 2, failed: 1 },
    amountsKopecks: { succeeded: 350_000, failed: 150_000 },
    page: { number: 1, size: 100, total: 3 },
  });
  const items = whole.body.items as { reference: string; state: string; payee: { masked: string } }[];
  expect(items.map((i) => [i.reference, i.state])).toEqual([
    [`${prefix}-1`, 'succeeded'],
    [`${prefix}-2`, 'failed'],
    [`${prefix}-3`, 'succeeded'],
  ]);
  expect(items[0]!.payee.masked).toBe('220000******0012');

  const second = await ask(`/batches/${batchId}?page=2&pageSize=2`, service);
  expect((second.body.items as { reference: string }[]).map((i) => i.reference)).toEqual([`${prefix}-3`]);
  const failed = await ask(`/batches/${batchId}?state=failed`, service);
  expect(failed.body.page).toEqual({ number: 1, size: 100, total: 1, state: 'failed' });
  expect(failed.body.items).toEqual([
    expect.objectContaining({
      reference: `${prefix}-2`,
      failure: expect.objectContaining({ code: expect.any(String) }),
    }),
  ]);
  expect((await ask(`/batches/${batchId}?state=pending`, service)).body.page).toMatchObject({ total: 0 });
  expect((await ask(`/batches/${batchId}?pageSize=501`, service)).status).toBe(400);
  expect((await ask(`/batches/batch-0000000000000000`, service)).status).toBe(404);

  const payout = await ask(`/payouts/${prefix}-1`, service);
  expect(payout.body).toMatchObject({
    reference: `${prefix}-1`,
    found: 'paid',
    state: 'succeeded',
    amountKopecks: 150_000,
    batchId,
    bank: { sessionId: expect.any(String), payoutId: expect.any(String) },
  });
  expect((await ask(`/payouts/${prefix}-nobody`, service)).status).toBe(404);

  const year = await ask('/recipient-year', service, { headers: { 'payrun-inn': inn } });
  expect(year.body).toMatchObject({ inn: `********${inn.slice(-4)}`, openReservations: 0 });
  expect((year.body.years as { paidKopecks: number }[])[0]).toMatchObject({ paidKopecks: 150_000 });
  expect((await ask('/recipient-year', service, { headers: { 'payrun-inn': '7700000000' } })).status).toBe(
    400,
  );
  // The INN never travels in the address: there is no route that takes it there.
  expect((await ask(`/recipient-year/${inn}`, service)).status).toBe(404);
  for (const answer of [whole, second, failed, payout, year]) expectNoFullNumbers(answer.text, true);
  expect(payout.body.bank).toMatchObject({ receiptLink: expect.stringContaining('lknpd.nalog.ru') });
});

test('each role reads what docs/api.md gives it, and nobody reaches another role’s data', async () => {
  const differences = await ask('/reconciliation/differences', tokens.approver);
  expect(differences.status).toBe(200);
  const open = differences.body.items as { account: string; kind: string; bankAmountKopecks?: number }[];
  expect(open).toEqual([
    expect.objectContaining({ account: `****************${ACCOUNT.slice(-4)}`, bankAmountKopecks: 777_700 }),
  ]);
  expectNoFullNumbers(differences.text, true);

  const viewer = tokens.viewer!;
  const viewerBatch = await ask(`/batches/${batchId}`, viewer);
  const viewerPayout = await ask(`/payouts/${prefix}-1`, viewer);
  expect([viewerBatch.status, viewerPayout.status]).toEqual([200, 200]);
  expectNoFullNumbers(viewerBatch.text + viewerPayout.text, false);
  const refused = await ask('/recipient-year', viewer, { headers: { 'payrun-inn': inn } });
  expect(refused).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
  expect((refused.body.error as { message: string }).message).toBe(
    'у viewer нет права читать это (docs/api.md, «Кто что читает»)',
  );
  expect((await ask('/reconciliation/differences', viewer)).status).toBe(403);
  expect((await ask('/reconciliation/differences', tokens.watcher)).status).toBe(403);

  // No token, a made-up one, a broken header: nobody.
  for (const token of [undefined, `prn_${'A'.repeat(43)}`, 'x'.repeat(300)]) {
    const answer = await ask(`/payouts/${prefix}-1`, token);
    expect(answer).toMatchObject({ status: 401, body: { error: { code: 'unauthenticated' } } });
  }
  // A person signed in to the console reads with their session, and with their roles.
  const browser = new ConsoleBrowser(consoleApp.url, '127.0.5.1');
  expect((await browser.signIn('viewer', PASSWORD)).status).toBeLessThan(400);
  const bySession = await browser.send(`/api/v1/payouts/${prefix}-1`);
  expect(bySession.status).toBe(200);
  expect(validate('Payout', JSON.parse(bySession.text))).toBeUndefined();
  expect((await browser.send('/api/v1/reconciliation/differences')).status).toBe(403);
});

test('nothing moves money: every other method is refused, and the bank sees no new call', async () => {
  const ledger = stack.sandbox.ledger().length;
  for (const [method, path] of [
    ['POST', `/payouts/${prefix}-9`],
    ['PUT', `/batches/${batchId}`],
    ['DELETE', `/batches/${batchId}`],
    ['POST', `/batches/${batchId}/approve`],
    ['PATCH', '/reconciliation/differences'],
  ] as const) {
    const answer = await ask(path, tokens.approver, {
      method,
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
  }
  expect(stack.sandbox.ledger().length).toBe(ledger);
});

test('each person is held to the rate limit, and a revoked token line stops at once', async () => {
  const statuses: number[] = [];
  for (let i = 0; i <= PER_MINUTE; i++)
    statuses.push((await ask(`/payouts/${prefix}-3`, tokens.approver2)).status);
  expect(statuses.slice(0, PER_MINUTE).every((s) => s === 200)).toBe(true);
  expect(statuses[PER_MINUTE]).toBe(429);
  // Another person is not held by approver2's count.
  expect((await ask(`/payouts/${prefix}-3`, tokens.watcher)).status).toBe(200);
  // The file keeps only hashes, owner-only.
  expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
  const file = readFileSync(tokensFile, 'utf8');
  for (const token of Object.values(tokens)) expect(file).not.toContain(token);
  // Its line deleted, approver2's token is nobody's at the next request.
  writeFileSync(
    tokensFile,
    file
      .split('\n')
      .filter((l) => !l.startsWith('approver2 '))
      .join('\n'),
  );
  expect((await ask(`/payouts/${prefix}-3`, tokens.approver2)).status).toBe(401);
  expect((await ask(`/payouts/${prefix}-3`, tokens.watcher)).status).toBe(200);
});
