import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as iconv from 'iconv-lite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchPaths } from '../../src/batch/services/config';
import { batchStoreFor } from '../../src/batch/store/open';
import { hashPassword, totpCode } from '../../src/console/passwords';
import { cellRubles, formatRubles, rublesToKopecks } from '../../src/money';
import { writePolicy, type PolicyRulesSpec } from '../../src/policy/generate';
import { TEST_CARDS, TEST_PHONES } from '../../src/sandbox/test-values';
import { batchProgressQuery } from '../../workflows/batch/contract';
import { batchHandle, batchTestPaths, freshInn, uniquePrefix } from '../harness/batches';
import { launchChromium, seriousAxeViolations, type AxeViolation } from '../harness/browser';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/**
 * The review an approver reads before deciding, in headless Debian chromium against the real dev server,
 * sandbox, worker and `payrun console`. A preparer uploads a one-row file that is paid; then a 129-row
 * file of the same name: the approver sees every row (names, masked numbers), totals by recipient, a
 * recipient never paid before and a row over the per-payout limit flagged, pages through, sorts largest
 * first, reads the change from the last file, downloads the whole list; approving and cancelling ask for
 * confirmation naming the total and the row count, with the page's script off, and nothing reaches the
 * workflow until confirmed. No page or download carries a whole card, account, phone or tax number.
 */
const PASSWORD = 'пароль-для-теста-2';
const TOTP: Record<string, string> = {
  approver: 'JBSWY3DPEHPK3PXPJBSWY3DP',
  approver2: 'KRSXG5CTMVRXEZLUKRSXG5CT',
};
const RULES: PolicyRulesSpec = { per_payout_limit: '50 000,00' };
const FILE = 'ведомость-март.csv';
const HEADER =
  'Референс;Фамилия;Имя;ИНН;Способ;Номер карты;БИК;Счет;Телефон;Банк СБП;Сумма;Самозанятый;Услуга';
const ACCOUNT = '40817810300000123456';

interface Row {
  reference: string;
  lastName: string;
  inn: string;
  method: 'карта' | 'счет' | 'сбп';
  amount: number;
}

function csv(rows: Row[]): Buffer {
  const line = (r: Row) =>
    [
      r.reference,
      r.lastName,
      'Мария',
      r.inn,
      r.method,
      r.method === 'карта' ? TEST_CARDS.SUCCESS : '',
      r.method === 'счет' ? '044525225' : '',
      r.method === 'счет' ? ACCOUNT : '',
      r.method === 'сбп' ? TEST_PHONES.FOUND : '',
      r.method === 'сбп' ? '100000000111' : '',
      `"${formatRubles(r.amount)}"`,
      'да',
      'Консультация',
    ].join(';');
  return iconv.encode([HEADER, ...rows.map(line)].join('\r\n') + '\r\n', 'win1251');
}

describe('the approver reviews the rows before approving', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let app: ConsoleProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const bodies: { what: string; text: string }[] = [];
  const axe = new Map<string, AxeViolation[]>();
  const prefix = uniquePrefix();
  // People no other suite pays (the dev server's ledgers are shared): a seed of their own.
  const seed = randomInt(50_000_000, 99_999_999);
  const known = freshInn(seed);
  const newcomer = freshInn(seed + 1);
  const first: Row[] = [
    { reference: `${prefix}-0`, lastName: 'Кузнецова', inn: known, method: 'карта', amount: 100_000 },
  ];
  const second: Row[] = [
    ...Array.from({ length: 126 }, (_, i): Row => ({
      reference: `${prefix}-${i + 1}`,
      lastName: 'Кузнецова',
      inn: known,
      method: 'карта',
      amount: 100_000 + (i + 1) * 100,
    })),
    { reference: `${prefix}-fps`, lastName: 'Кузнецова', inn: known, method: 'сбп', amount: 50_000 },
    { reference: `${prefix}-new`, lastName: 'Новикова', inn: newcomer, method: 'счет', amount: 200_000 },
    { reference: `${prefix}-big`, lastName: 'Кузнецова', inn: known, method: 'карта', amount: 6_000_000 },
  ];
  const total = second.reduce((s, r) => s + r.amount, 0);
  const FULL_NUMBERS = [TEST_CARDS.SUCCESS, ACCOUNT, TEST_PHONES.FOUND, known, newcomer];

  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    const written = writePolicy(
      stack.people.dir,
      [
        ...TEST_PEOPLE.map((p) => ({ ...p, passwordHash, ...(TOTP[p.id] ? { totp: TOTP[p.id] } : {}) })),
        { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
      ],
      RULES,
      // The review is this test's subject; deciding with a passkey is console-passkey.test.ts's.
      {
        proofs: {
          approve: ['cli-key', 'passkey', 'console-session'],
          reject: ['cli-key', 'passkey', 'console-session'],
        },
      },
    );
    app = await spawnConsole({
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_LANG: 'ru',
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await app?.stop();
    await stack?.stop();
  });

  const url = (path: string) => `${app.url}${path}`;

  async function signIn(person: string, javaScriptEnabled = true): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
      javaScriptEnabled,
    });
    contexts.push(context);
    context.on('response', (r) => {
      if (/html|json|text/.test(r.headers()['content-type'] ?? ''))
        void r
          .text()
          .then((text) => bodies.push({ what: r.url(), text }))
          .catch(() => undefined);
    });
    const page = await context.newPage();
    await page.goto(url('/login'));
    await page.fill('#person', person);
    await page.fill('#password', PASSWORD);
    if (TOTP[person]) await page.fill('#totp', totpCode(TOTP[person]));
    await clickAndLoad(page, 'form[action="/login"] button');
    expect(page.url()).toMatch(/\/batches$/);
    return page;
  }

  async function clickAndLoad(page: Page, selector: string) {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  }

  async function upload(page: Page, rows: Row[]): Promise<string> {
    await page.goto(url('/upload'));
    await page.setInputFiles('#file', { name: FILE, mimeType: 'text/csv', buffer: csv(rows) });
    await clickAndLoad(page, '#upload-form button[type="submit"]');
    await clickAndLoad(page, 'form[action$="/submit"] button');
    return page.url().split('/').pop()!;
  }

  const phase = async (id: string) => (await batchHandle(stack, id).query(batchProgressQuery)).phase;
  /** Each table row's cells, one space between them. */
  const texts = (page: Page, selector: string) =>
    page.$$eval(selector, (trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td')]
          .map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())
          .join(' ')
          .trim(),
      ),
    );

  let preparer: Page;
  let approver: Page;
  let batchId = '';

  test('the first file of the name is approved through the confirm page and paid', async () => {
    preparer = await signIn('preparer');
    approver = await signIn('approver');
    const id = await upload(preparer, first);
    await approver.goto(url(`/batches/${id}`));
    await clickAndLoad(approver, 'form[action$="/approve"] button');
    await clickAndLoad(approver, '#confirm-form button');
    expect(await approver.textContent('.flash')).toContain('Ответ пакета');
    await waitFor(async () => (await phase(id)) === 'done', 120_000, 'the first batch done');
  });

  test('every row, masked, paged, largest first; totals by recipient; the newcomer and the big row flagged', async () => {
    batchId = await upload(preparer, second);
    await approver.goto(url(`/batches/${batchId}`));
    expect(await approver.textContent('#review-summary')).toContain(
      `129 строк на ${formatRubles(total)} ₽, 2 получателя. Ни разу не получали выплат от payrun: 1. Строк сверх лимита: 1.`,
    );
    expect(await approver.textContent('#rows caption')).toContain('Строки 1–100 из 129');
    const page1 = await texts(approver, '#rows tbody tr');
    expect(page1).toHaveLength(100);
    expect(page1[0]).toBe(
      `2 ${prefix}-1 Кузнецова Мария ********${known.slice(-4)} карта 220000******0012 1 001,00 ₽ да ${formatRubles(total - 200_000)} ₽`,
    );
    await axeCheck(approver, 'review');

    await clickAndLoad(approver, '#rows-pages a[rel="next"]');
    expect(await approver.textContent('#rows caption')).toContain('Строки 101–129 из 129');
    const page2 = await texts(approver, '#rows tbody tr');
    expect(page2).toHaveLength(29);
    expect(page2.find((r) => r.includes(`${prefix}-fps`))).toContain('СБП *******0001 100000000111 500,00 ₽');
    expect(page2.find((r) => r.includes(`${prefix}-new`))).toBe(
      `129 ${prefix}-new Новикова Мария ********${newcomer.slice(-4)} счёт 044525225 ****************3456 2 000,00 ₽ да 2 000,00 ₽ новый получатель`,
    );
    expect(page2.find((r) => r.includes(`${prefix}-big`))).toContain(
      '60 000,00 ₽ превысит лимит одной выплаты 50 000,00 ₽ (limit_exceeded)',
    );
    const people = await texts(approver, '#people tbody tr');
    expect(people).toEqual([
      `Кузнецова Мария ********${known.slice(-4)} 128 ${formatRubles(total - 200_000)} ₽`,
      `Новикова Мария ********${newcomer.slice(-4)} 1 2 000,00 ₽ новый получатель`,
    ]);
    expect(await approver.textContent('#diff')).toMatch(
      new RegExp(
        `строк 1 → 129, сумма 1 000,00 ₽ → ${formatRubles(total)} ₽.*Новых получателей: 1, выбыло: 0, сумма изменилась у 1`,
      ),
    );

    await approver.selectOption('#order', 'amount');
    await approver.selectOption('#only', 'flagged');
    await clickAndLoad(approver, '#rows-filter button');
    const flagged = await texts(approver, '#rows tbody tr');
    expect(flagged.map((r) => r.split(' ')[1])).toEqual([`${prefix}-big`, `${prefix}-new`]);
    await approver.selectOption('#only', 'all');
    await clickAndLoad(approver, '#rows-filter button');
    expect((await texts(approver, '#rows tbody tr')).slice(0, 3).map((r) => r.split(' ')[1])).toEqual([
      `${prefix}-big`,
      `${prefix}-new`,
      `${prefix}-126`,
    ]);
  });

  test('the whole list downloads: every row, masked, and the total', async () => {
    const [download] = await Promise.all([approver.waitForEvent('download'), approver.click('#rows-csv')]);
    const text = iconv.decode(readFileSync((await download.path())!), 'win1251');
    bodies.push({ what: 'rows.csv', text });
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'Строка;Референс;Получатель;ИНН;Способ;Реквизиты;Сумма;Самозанятый;Итого получателю;Новый получатель;Лимит',
    );
    const rows = lines.slice(1, -1).map((l) => l.split(';'));
    expect(rows).toHaveLength(129);
    expect(rows.map((r) => r[1]).sort()).toEqual(second.map((r) => r.reference).sort());
    expect(rows.reduce((s, r) => s + rublesToKopecks(r[6]!), 0)).toBe(total);
    expect(lines.at(-1)).toBe(`Итого;;;;;;${cellRubles(total)};;;;`);
    expect(rows.find((r) => r[1] === `${prefix}-new`)![9]).toBe('да');
  });

  test('approving and cancelling ask first, naming the total and rows, without the script; nothing reaches the workflow before', async () => {
    const page = await signIn('approver2', false);
    await page.goto(url(`/batches/${batchId}`));
    await clickAndLoad(page, 'form[action$="/approve"] button');
    expect(await page.textContent('#confirm-question')).toContain(
      `Утвердить пакет ${batchId} (файл «${FILE}»): 129 строк на сумму ${formatRubles(total)} ₽?`,
    );
    expect(await page.textContent('#confirm-form button')).toContain(`129 строк, ${formatRubles(total)} ₽`);
    // Nothing signed or sent yet: the workflow and the file's record know no approval.
    const notYet = async () => {
      const p = await batchHandle(stack, batchId).query(batchProgressQuery);
      expect(p.phase).toBe('awaiting_approval');
      expect(p.approval?.approvedBy ?? []).toEqual([]);
      const meta = await batchStoreFor(paths.dataDir).readMeta(batchId);
      const said = await batchStoreFor(paths.dataDir).readStatements(meta.contentHash);
      expect(said.map((s) => s.statement.kind === 'batch' && s.statement.decision)).toEqual(['submit']);
    };
    await notYet();
    // A confirmation with other figures than the batch's decides nothing.
    const token = await page.inputValue('#confirm-form input[name="_csrf"]');
    const forged = await page.context().request.post(url(`/batches/${batchId}/approve`), {
      form: {
        _csrf: token,
        confirm: '1',
        rows: '129',
        total: String(total - 6_000_000),
        content: await page.inputValue('#confirm-form input[name="content"]'),
      },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(409);
    expect(await forged.text()).toContain('Цифры пакета не совпадают');
    await notYet();

    await clickAndLoad(page, '#confirm-form button');
    expect(await page.textContent('.flash')).toContain('Ответ пакета');
    const p = await batchHandle(stack, batchId).query(batchProgressQuery);
    expect(p.approval?.approvedBy).toEqual(['approver2']);

    await page.goto(url(`/batches/${batchId}`));
    await clickAndLoad(page, 'form[action$="/cancel"] button');
    expect(await page.textContent('#confirm-question')).toContain(
      `Отменить пакет ${batchId} (файл «${FILE}»): 129 строк на сумму ${formatRubles(total)} ₽?`,
    );
    const before = await batchHandle(stack, batchId).query(batchProgressQuery);
    expect((before.commands ?? []).filter((c) => c.command === 'cancel')).toEqual([]);
    await clickAndLoad(page, '#confirm-form button');
    const after = await batchHandle(stack, batchId).query(batchProgressQuery);
    expect(after.commands?.map((c) => [c.command, c.by])).toContainEqual(['cancel', 'approver2']);
    await waitFor(async () => (await phase(batchId)) === 'done', 120_000, 'the cancelled batch done');
  });

  test('the confirm page is axe-clean; no page or download held a whole card, account, phone or tax number', async () => {
    await approver.goto(url(`/batches/${batchId}`));
    await approver.goto(url(`/batches/${batchId}`)); // a finished batch still shows what it was to pay
    expect(await approver.textContent('#review-summary')).toContain('129 строк');
    await approver.goto(url(`/batches`));
    const another = await upload(
      preparer,
      first.map((r) => ({ ...r, reference: `${r.reference}-x` })),
    );
    await approver.goto(url(`/batches/${another}`));
    await clickAndLoad(approver, 'form[action$="/approve"] button');
    expect(await approver.textContent('#confirm-question')).toContain('1 строка на сумму 1 000,00 ₽');
    await axeCheck(approver, 'confirm');
    expect(bodies.length).toBeGreaterThan(10);
    const leaks = bodies.filter((b) => FULL_NUMBERS.some((n) => b.text.includes(n))).map((b) => b.what);
    expect(leaks).toEqual([]);
    expect(Object.fromEntries([...axe].filter(([, v]) => v.length > 0))).toEqual({});
    expect([...axe.keys()].sort()).toEqual(['confirm', 'review']);
  });

  async function axeCheck(page: Page, name: string) {
    axe.set(name, await seriousAxeViolations(page));
  }
});
