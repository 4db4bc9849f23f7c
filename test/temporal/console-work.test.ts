import * as iconv from 'iconv-lite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchPaths } from '../../src/batch/services/config';
import { hashPassword } from '../../src/console/passwords';
import { TEMPLATE_HEADERS } from '../../src/console/routes-work';
import { writePolicy } from '../../src/policy/generate';
import { TEST_INNS } from '../../src/sandbox/test-values';
import { cancelBatchUpdate } from '../../workflows/batch/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { launchChromium } from '../harness/browser';
import { workTimeout } from '../harness/budget';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';

/**
 * Issue 39's console work beside reconciliation, in headless Debian chromium against the real dev server,
 * sandbox, worker and `payrun console` (the policy's defaults: every file waits for an approver): the file
 * template in both encodings passes the check page; the dry run names each row's recipient and ends no
 * sentence on a bare colon; a file submitted again (same bytes, or same name) is named with its earlier
 * batch; retry-failed of a finished batch makes a retry batch that waits for its own approval; search by
 * surname (any case), submitter's shown name, reference and INN (masked); the list and the check page fit
 * a 390 px phone.
 */
const PASSWORD = 'пароль-для-работы-1';

describe('the whole job in the console', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let consoleApp: ConsoleProcess;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const prefix = uniquePrefix();
  const timeout = workTimeout({ units: 1, perUnitMs: 90_000, floorMs: 120_000 });

  beforeAll(async () => {
    stack = await startStack({ policy: {} });
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    const written = writePolicy(stack.people.dir, [
      ...TEST_PEOPLE.map((p) => ({ ...p, passwordHash })),
      { id: 'console', name: 'Консоль', roles: ['authenticator'] },
    ]);
    consoleApp = await spawnConsole({
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_LANG: 'ru',
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
      PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'optional',
    });
    browser = await launchChromium();
  }, timeout);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await consoleApp?.stop();
    await stack?.stop();
  });

  const url = (path: string) => `${consoleApp.url}${path}`;
  async function signIn(person: string, width = 1280): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(url('/login'));
    await page.fill('#person', person);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
    expect(page.url()).toMatch(/\/batches$/);
    return { context, page };
  }
  const text = (page: Page, selector: string) =>
    page.$eval(selector, (e) =>
      (e as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim(),
    );
  const download = async (page: Page, selector: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    const { readFileSync } = await import('node:fs');
    return readFileSync((await file.path())!);
  };
  /** Uploads bytes as `name` on the upload page and lands on the check page. */
  async function check(page: Page, name: string, buffer: Buffer) {
    await page.goto(url('/upload'));
    await page.setInputFiles('#file', { name, mimeType: 'text/csv', buffer });
    await Promise.all([page.waitForNavigation(), page.click('#upload-form button[type="submit"]')]);
  }
  async function submitChecked(page: Page): Promise<string> {
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/submit"] button')]);
    return page.url().split('/').pop()!;
  }

  test(
    'the template in both encodings passes the check; the dry run names recipients; a repeat is named',
    async () => {
      const { page } = await signIn('preparer');
      await page.goto(url('/upload'));
      const cp1251 = await download(page, '#template-cp1251');
      const utf8 = await download(page, '#template-utf8');
      const lines = iconv.decode(cp1251, 'win1251').split('\r\n');
      expect(lines[0]!.split(';')).toEqual(TEMPLATE_HEADERS);
      expect(utf8.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      expect(utf8.subarray(3).toString('utf8')).toBe(iconv.decode(cp1251, 'win1251'));

      for (const [name, bytes] of [
        ['шаблон-1251.csv', cp1251],
        ['шаблон-utf8.csv', utf8],
      ] as const) {
        await check(page, name, bytes);
        expect(await page.$('#row-errors')).toBeNull();
        expect(await page.$('#file-errors')).toBeNull();
        expect(await text(page, '#check-summary')).toContain('1 500,00 ₽');
      }

      // The dry run: each row by its recipient's name; no sentence ends on a bare colon.
      await Promise.all([
        page.waitForNavigation({ timeout: 60_000 }),
        page.click('form[action$="/dry-run"] button'),
      ]);
      expect(await text(page, '#dry-run')).toContain('vyplata-0001 Иванова Анна Сергеевна 1 500,00 ₽');
      const bare = await page.$$eval('main p, main h1, main h2, main caption, main li', (els) =>
        els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()).filter((s) => s.endsWith(':')),
      );
      expect(bare).toEqual([]);

      // Submitted once; the same bytes under another name, then other rows under the same name, are named.
      const rows = batchCsv([{ reference: `${prefix}-t1` }], { win1251: true });
      await check(page, 'февраль.csv', rows);
      expect(await page.$('#repeat-warning')).toBeNull();
      const first = await submitChecked(page);
      await check(page, 'февраль-ещё-раз.csv', rows);
      expect(await text(page, '#repeat-warning')).toContain(
        `ровно эти строки (тот же файл по содержимому) уже отправлены — пакет ${first} («февраль.csv»`,
      );
      await check(page, 'февраль.csv', batchCsv([{ reference: `${prefix}-t2` }], { win1251: true }));
      expect(await text(page, '#repeat-warning')).toContain(
        `файл с таким же именем «февраль.csv» уже отправлялся — пакет ${first}`,
      );
      await batchHandle(stack, first).executeUpdate(cancelBatchUpdate, { args: [{ by: 'preparer' }] });
    },
    timeout,
  );

  let finished = '';
  const refs = [`${prefix}-r1`, `${prefix}-r2`];

  test(
    'retry-failed of a finished batch makes a retry batch that waits for its own approval',
    async () => {
      const { context, page } = await signIn('preparer');
      await check(
        page,
        'повтор.csv',
        batchCsv(
          refs.map((reference) => ({ reference })),
          { win1251: true },
        ),
      );
      finished = await submitChecked(page);
      const handle = batchHandle(stack, finished);
      await waitForProgress(handle, (p) => p.phase === 'awaiting_approval');
      await handle.executeUpdate(cancelBatchUpdate, { args: [{ by: 'preparer', reason: 'не утвердили' }] });
      expect((await handle.result()).counts).toEqual({ cancelled: 2 });

      await page.goto(url(`/batches/${finished}`));
      await Promise.all([page.waitForNavigation({ timeout: 60_000 }), page.click('#retry form button')]);
      const retryId = page.url().split('/').pop()!;
      expect(retryId).toMatch(/-retry-1$/);
      expect(await text(page, '.flash')).toContain(
        `Создан пакет-повтор ${retryId} из ${finished}: строк 2 на 3 000,00 ₽. Он ждёт своего утверждения`,
      );
      const waiting = await waitForProgress(
        batchHandle(stack, retryId),
        (p) => p.phase === 'awaiting_approval',
      );
      expect(waiting.approval).toMatchObject({ required: true, submitter: 'preparer', approvedBy: [] });
      expect([...ledgerPayouts(stack, refs).values()]).toEqual([0, 0]);

      // A second retry of the same batch is refused, in words.
      await page.goto(url(`/batches/${finished}`));
      await Promise.all([page.waitForNavigation({ timeout: 60_000 }), page.click('#retry form button')]);
      expect(await text(page, '.flash')).toContain(
        `Повтор не создан: пакет ${finished} уже повторён как ${retryId}`,
      );

      // A viewer sees no retry and may not post one.
      const viewer = await signIn('viewer');
      await viewer.page.goto(url(`/batches/${finished}`));
      expect(await viewer.page.$('#retry')).toBeNull();
      const token = await viewer.page.inputValue('form[action="/logout"] input[name="_csrf"]');
      const tried = await viewer.context.request.post(url(`/batches/${finished}/retry-failed`), {
        form: { _csrf: token },
      });
      expect(tried.status()).toBe(403);
      await batchHandle(stack, retryId).executeUpdate(cancelBatchUpdate, { args: [{ by: 'preparer' }] });
      void context;
    },
    timeout,
  );

  test(
    'search by surname in any case, the submitter’s shown name, a reference and an INN (masked)',
    async () => {
      const { page } = await signIn('viewer');
      const search = async (q: string) => {
        await page.goto(url('/search'));
        await page.fill('#q', q);
        await Promise.all([page.waitForNavigation(), page.click('form[action="/search"] button')]);
        expect(page.url()).toMatch(/\/search$/);
        return (await page.$('#search-hits')) ? text(page, '#search-hits') : text(page, '#search-none');
      };
      const bySurname = await search('кузнецова');
      expect(bySurname).toContain(`${refs[0]} Кузнецова Мария`);
      expect(bySurname).toContain('77********90');
      expect(bySurname).not.toContain(TEST_INNS.SELF_EMPLOYED_LINKED);
      expect(await search('ПОДГОТОВ')).toContain('отправил Мария Подготовкина');
      expect(await search(refs[1]!)).toContain(`${finished}`);
      const byInn = await search(TEST_INNS.SELF_EMPLOYED_LINKED);
      expect(byInn).toContain('ИНН');
      expect(byInn).not.toContain(TEST_INNS.SELF_EMPLOYED_LINKED);
      expect(await search('Нетакойфамилии')).toContain('ничего не найдено');
    },
    timeout,
  );

  test(
    'the batches list and the check page fit a 390 px phone',
    async () => {
      const { page } = await signIn('preparer', 390);
      const width = () => page.$eval('html', (e) => (e as unknown as { scrollWidth: number }).scrollWidth);
      await page.goto(url('/batches'));
      expect(await page.$$eval('main table tbody tr', (r) => r.length)).toBeGreaterThan(1);
      expect(await width()).toBeLessThanOrEqual(390);
      await check(
        page,
        'узкий.csv',
        batchCsv([{ reference: `${prefix}-n1` }, { reference: `${prefix}-n2`, card: '1234' }], {
          win1251: true,
        }),
      );
      expect(await page.$('#row-errors')).not.toBeNull();
      expect(await width()).toBeLessThanOrEqual(390);
    },
    timeout,
  );
});
