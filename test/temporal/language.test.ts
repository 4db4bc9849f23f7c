import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchPaths } from '../../src/batch/services/config';
import { hashPassword, totpCode } from '../../src/console/passwords';
import { writePolicy } from '../../src/policy/generate';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import { moscowDay } from '../../src/reconcile/days';
import { DEMO_LOGINS, DEMO_PASSWORD, demoLines } from '../../src/demo/lines';
import { t } from '../../src/i18n';
import { commandAnswer } from '../../src/i18n/operator-answers';
import { batchProgressQuery } from '../../workflows/batch/contract';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import { payoutWorkflow } from '../../workflows/payout/workflow';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  readReport,
  uniquePrefix,
  type CsvRow,
} from '../harness/batches';
import { launchChromium } from '../harness/browser';
import { underLoad, workTimeout } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { foreignWords, wordsOf, type Language } from '../harness/language';
import { FAST, payoutRequest, startPayout } from '../harness/payouts';
import { DEPOSIT_ACCOUNT } from '../harness/reconciliation';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnPayrunProcess } from '../harness/worker-process';

/**
 * Issue 39's language test: what a person reads on payrun's own surfaces is in the language set, and
 * nothing of the other one outside the bank's quoted words and identifiers (test/harness/language.ts).
 * Per language, a console in Chromium (login, upload, a rejected file's check page, a good file's check
 * page and dry run, the batch page waiting for approval and at «1 из 2», the list, the finished batch
 * with a bank-declined row and its audit, the payout page, a recipient, reconciliation, search, a missing
 * page) and the commands of the documented flow (`batch status`, `batch audit`, `batch report`, `payout
 * status`, `recipient show`, an approval's answer, `batch retry-failed` and `batch cancel` of the retry,
 * `receipts to-annul`, `batch cancel-scheduled` refusing, `reconcile day` and `status`), the summary, the
 * report's reasons and the day's reconciliation CSV.
 * Then the rest of the console (passkeys with and without the console's site named, the sign-in page
 * with passkeys, a login made to wait and the admin's sign-in locks with an unlock, both file templates,
 * a form over the 1 MB limit: 413) and of the commands (`batch submit` of a rejected file, `--dry-run`
 * and a started file; `payrun watch` starting, submitting, rejecting and refusing a file again with its
 * `.errors.txt`; `schedule create`, `list`, `pause`, `delete` and a name taken; `events replay`
 * refused, misused and run; `reconcile resolve` refused by the worker; `payout status` and the payout
 * page of two payouts whose runs were stopped; the lines `make demo` prints, from src/demo/lines.ts).
 * Commander's `--help` stays English and is not read here: it is the commands' documentation, as
 * docs/ is, not an answer to an accountant's act.
 */
const PASSWORD = 'пароль-для-теста-1';
/** The admin's login is a name, not the word "admin", so allowing it hides no English word. */
const ADMIN = 'anna';
const ADMIN_NAME = 'Анна Админова';
const TOTP = { approver: 'JBSWY3DPEHPK3PXPJBSWY3DP', approver2: 'KRSXG5DSNFXGOIDUMVZXIIDP' };
/** Approvals signed by the console for the person signed in (console.test.ts does the same). */
const CONSOLE_SIGNS_DECISIONS = {
  proofs: {
    approve: ['cli-key', 'passkey', 'console-session'],
    reject: ['cli-key', 'passkey', 'console-session'],
  },
};
/**
 * What a text may carry of the other language: the test's own data (people's names and login ids, the
 * file's Russian column names) and the report's format (its column names and state codes, documented in
 * docs/batch-format.md as codes).
 */
const DATA = wordsOf(
  ...TEST_PEOPLE.flatMap((p) => [p.name, p.id]),
  ADMIN_NAME,
  ADMIN,
  'console',
  'Консоль бухгалтерии',
  // The file's own cells (test/harness/batches.ts batchCsv): the recipient, the method, the service.
  'Кузнецова Мария карта Номер карты Консультация',
);
const REPORT_FORMAT = [
  'Референс',
  'Фамилия',
  'Имя',
  'Способ',
  'Номер карты',
  'Сумма',
  'Валюта',
  'Услуга',
  'Самозанятый',
  'Иванов',
  'Иван',
  'card',
  'RUB',
  'Услуги',
  'да',
  'state',
  'bank_session_id',
  'bank_payout_id',
  'receipt_link',
  'error_code',
  'reason',
  'headroom',
  'succeeded',
  'credited',
  'failed',
];

describe('every word in the language set', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let browser: Browser;
  const consoles = new Map<Language, ConsoleProcess>();
  const contexts: BrowserContext[] = [];
  let env: NodeJS.ProcessEnv = {};

  /** The policy both consoles and the worker read; `webauthn` names the console's site (passkey pages). */
  let writeTestPolicy: (webauthn?: { rp_id: string; origin: string }) => ReturnType<typeof writePolicy>;

  beforeAll(async () => {
    stack = await startStack({ policy: { two_approvers_above: '1,00' } });
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    writeTestPolicy = (webauthn) =>
      writePolicy(
        stack.people.dir,
        [
          ...TEST_PEOPLE.map((p) => ({
            ...p,
            passwordHash,
            ...(p.id in TOTP ? { totp: TOTP[p.id as keyof typeof TOTP] } : {}),
          })),
          { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
          // The sign-in locks page is an admin's.
          { id: ADMIN, name: ADMIN_NAME, roles: ['admin'], passwordHash },
        ],
        { two_approvers_above: '1,00' },
        { ...CONSOLE_SIGNS_DECISIONS, ...(webauthn ? { webauthn } : {}) },
      );
    const written = writeTestPolicy();
    env = {
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
      // A login is made to wait on purpose (the locks page): the per-address limit must not end the walk.
      PAYRUN_CONSOLE_LOGIN_PER_MINUTE: '1000',
    };
    for (const lang of ['ru', 'en'] as const)
      consoles.set(lang, await spawnConsole({ ...env, PAYRUN_LANG: lang }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    for (const c of consoles.values()) await c.stop();
    await stack?.stop();
  });

  async function clickAndLoad(page: Page, selector: string) {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  }

  async function signIn(lang: Language, person: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${consoles.get(lang)!.url}/login`);
    await page.fill('#person', person);
    await page.fill('#password', PASSWORD);
    if (person in TOTP) await page.fill('#totp', totpCode(TOTP[person as keyof typeof TOTP]));
    await clickAndLoad(page, 'form[action="/login"] button');
    return page;
  }

  /** The sign-in page in a browser context of its own, as someone not signed in opens it. */
  async function signInPage(lang: Language): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${consoles.get(lang)!.url}/login`);
    return page;
  }

  /** What a walk reads in `lang`, by where: a page as Chromium shows it, a command's whole output. */
  function walker(lang: Language) {
    const texts: { what: string; text: string }[] = [];
    const cliEnv = (person: string) => ({ ...stack.cliEnv(person), ...env, PAYRUN_LANG: lang });
    const read = async (page: Page, what: string) => {
      texts.push({ what, text: `${await page.title()}\n${await page.innerText('body')}` });
    };
    /** A command run with `runEnv` (a person's, with what the walk adds to it). */
    const cliWith = async (what: string, runEnv: NodeJS.ProcessEnv, ...args: string[]) => {
      const r = await runCli(args, runEnv);
      texts.push({ what, text: `${r.stdout}\n${r.stderr}` });
      return r;
    };
    const cli = (what: string, person: string, ...args: string[]) => cliWith(what, cliEnv(person), ...args);
    return { texts, cliEnv, read, cli, cliWith };
  }

  /**
   * Every text read, by where it was read, judged together at the end so one run names every stray
   * word: each group in its own language with its own allowed words.
   */
  function judge(...groups: [Language, { what: string; text: string }[], string[]][]) {
    const found = groups.flatMap(([lang, texts, allowed]) =>
      texts.flatMap(({ what, text }) =>
        foreignWords(text, lang, allowed).map(
          (f) => `${what}: «${f.word}» in …${f.near.replace(/\s+/g, ' ')}…`,
        ),
      ),
    );
    expect(found).toEqual([]);
  }

  it.each(['ru', 'en'] as const)(
    'in %s: console pages, commands, report, summary and audit',
    async (lang) => {
      const base = consoles.get(lang)!.url;
      const { texts, read, cli } = walker(lang);

      const prefix = uniquePrefix();
      const refs = [1, 2, 3].map((i) => `${prefix}-${lang}-${i}`);
      const rows = (bad: boolean) => [
        { reference: refs[0]!, ...(bad ? { amount: 'сто рублей' } : {}) },
        { reference: refs[1]!, card: TEST_CARDS.DECLINED_BY_ISSUER },
        { reference: refs[2]! },
      ];

      const login = await (await browser.newContext()).newPage();
      await login.goto(`${base}/login`);
      await read(login, 'login page');
      await login.goto(`${base}/no-such-page`);
      await read(login, '404 page');
      await login.context().close();

      const preparer = await signIn(lang, 'preparer');
      await preparer.goto(`${base}/upload`);
      await read(preparer, 'upload page');
      const upload = async (buffer: Buffer) => {
        await preparer.goto(`${base}/upload`);
        await preparer.setInputFiles('#file', { name: `words-${lang}.csv`, mimeType: 'text/csv', buffer });
        await clickAndLoad(preparer, '#upload-form button[type="submit"]');
      };
      await upload(batchCsv(rows(true), { win1251: true }));
      await read(preparer, 'check page, rejected file');
      await upload(batchCsv(rows(false), { win1251: true }));
      await read(preparer, 'check page');
      if (await preparer.isVisible('form[action$="/dry-run"] button')) {
        await clickAndLoad(preparer, 'form[action$="/dry-run"] button');
        await read(preparer, 'dry run page');
      }
      await clickAndLoad(preparer, 'form[action$="/submit"] button');
      const batchId = preparer.url().split('/').pop()!;
      await read(preparer, 'batch page after submit');
      expect(await preparer.textContent('#phase')).not.toContain(lang === 'ru' ? 'идут выплаты' : 'paying');
      await waitFor(
        async () =>
          (await batchHandle(stack, batchId).query(batchProgressQuery)).phase === 'awaiting_approval',
        workTimeout({ units: 1, perUnitMs: 30_000, floorMs: 60_000 }),
        'the batch waiting for approval',
      );
      await cli('batch status, waiting', 'preparer', 'batch', 'status', batchId);

      // The first approver in the browser: the page then says one of two are in, and who gave it.
      const approver = await signIn(lang, 'approver');
      await approver.goto(`${base}/batches/${batchId}`);
      await read(approver, 'batch page, waiting for approval');
      await clickAndLoad(approver, 'form[action$="/approve"] button');
      await clickAndLoad(approver, '#confirm-form button');
      await read(approver, 'batch page, one approval in');
      await waitFor(
        async () =>
          (await batchHandle(stack, batchId).query(batchProgressQuery)).approval?.approvedBy?.length === 1,
        workTimeout({ units: 1, perUnitMs: 30_000, floorMs: 60_000 }),
        'the first approval counted',
      );
      await approver.reload();
      expect(await approver.textContent('#phase')).toContain(
        lang === 'ru'
          ? 'утверждений: 1 из 2, ждём другого утверждающего (утвердил(и): Олег Утвердилов)'
          : 'approvals: 1 of 2, waiting for another approver (approved by Олег Утвердилов)',
      );
      const status = await cli('batch status, one of two', 'approver2', 'batch', 'status', batchId);
      expect(status.stdout).toContain(lang === 'ru' ? 'утверждений: 1 из 2' : 'approvals: 1 of 2');

      // The second approver with her own key, from the command line.
      await cli('batch approve', 'approver2', 'batch', 'approve', batchId);
      await waitFor(
        async () => (await batchHandle(stack, batchId).query(batchProgressQuery)).phase === 'done',
        workTimeout({ units: 3, perUnitMs: 20_000, floorMs: 120_000 }),
        'the batch done',
      );
      await approver.goto(`${base}/batches/${batchId}`);
      await approver.waitForSelector('#report-link', { state: 'attached' });
      await read(approver, 'batch page, done');
      await approver.goto(`${base}/batches`);
      await read(approver, 'batches list');
      await approver.goto(`${base}/payouts?reference=${encodeURIComponent(refs[1]!)}`);
      await read(approver, 'payout page, declined');
      await approver.goto(`${base}/payouts?reference=${encodeURIComponent(refs[0]!)}`);
      await read(approver, 'payout page, paid');
      await approver.goto(`${base}/recipients`);
      await approver.fill('#inn', TEST_INNS.SELF_EMPLOYED_LINKED);
      await clickAndLoad(approver, 'form[action="/recipients"] button');
      await read(approver, 'recipient page');

      await cli('batch status, done', 'viewer', 'batch', 'status', batchId);
      await cli('batch audit', 'viewer', 'batch', 'audit', batchId);
      const report = await cli('batch report', 'viewer', 'batch', 'report', batchId);
      await cli('payout status, declined', 'viewer', 'payout', 'status', refs[1]!);
      await cli('payout status, paid', 'viewer', 'payout', 'status', refs[0]!);
      await cli('recipient show', 'viewer', 'recipient', 'show', TEST_INNS.SELF_EMPLOYED_LINKED);
      // What accounting does next: the declined row retried (a batch waiting for approval), that retry
      // cancelled, the list of receipts to annul, and scheduled rows, by a date with none and a misspelt one.
      const retry = await cli('batch retry-failed', 'preparer', 'batch', 'retry-failed', batchId);
      const retryId = retry.stdout.trim().split('\n')[0]!;
      expect(retryId).toMatch(new RegExp(`^${batchId}-retry-1$`));
      await waitFor(
        async () =>
          (await batchHandle(stack, retryId).query(batchProgressQuery)).phase === 'awaiting_approval',
        workTimeout({ units: 1, perUnitMs: 30_000, floorMs: 60_000 }),
        'the retry waiting for approval',
      );
      await cli('batch status, retry waiting', 'viewer', 'batch', 'status', retryId);
      await cli('batch cancel', 'preparer', 'batch', 'cancel', retryId, '--by', 'preparer');
      await cli('receipts to-annul', 'viewer', 'receipts', 'to-annul');
      const none = await cli(
        'batch cancel-scheduled, no rows',
        'preparer',
        'batch',
        'cancel-scheduled',
        batchId,
        '--date',
        moscowDay(Date.now() + 86_400_000),
        '--by',
        'preparer',
      );
      expect(none.code).toBe(1);
      const misspelt = await cli(
        'batch cancel-scheduled, not a date',
        'preparer',
        'batch',
        'cancel-scheduled',
        batchId,
        '--date',
        '31.02.2027',
      );
      expect(misspelt.code).toBe(2);

      // Reconciliation: the day run from the command line, its status, and the console's own pages.
      const today = moscowDay(Date.now());
      const day = await cli(
        'reconcile day',
        'viewer',
        'reconcile',
        'day',
        today,
        '--account',
        DEPOSIT_ACCOUNT,
      );
      await cli('reconcile status', 'viewer', 'reconcile', 'status');
      const reconciliationCsv = new RegExp(`^${lang === 'ru' ? 'отчёт' : 'report'}: (.+)$`, 'm').exec(
        day.stdout,
      )?.[1];
      await approver.goto(`${base}/reconciliation`);
      await read(approver, 'reconciliation page');
      await approver.goto(`${base}/search`);
      await approver.fill('#q', 'Кузнецова');
      await clickAndLoad(approver, 'form[action="/search"] button');
      await read(approver, 'search page');

      const [reportPath, summaryPath] = (lang === 'ru' ? ['отчёт', 'итоги'] : ['report', 'summary']).map(
        (label) => new RegExp(`^${label} (.+)$`, 'm').exec(report.stdout)?.[1],
      );
      // The summary and the report are written once, by the worker, in its language (Russian here): they
      // are judged in that language whatever the command line's.
      const written: typeof texts = [];
      written.push({ what: 'summary', text: readFileSync(summaryPath!, 'utf8') });
      // Cell by cell, as Excel shows them (a quoted cell's quotes are doubled in the file).
      const cells = readReport(reportPath!, true).flatMap((r) => Object.entries(r).flat());
      written.push({ what: 'report', text: cells.join('\n') });
      // `batch report` prints the summary's text after its two labelled paths.
      const [labels, ...summaryLines] = [
        report.stdout.split('\n').slice(0, 2).join('\n'),
        ...report.stdout.split('\n').slice(2),
      ];
      texts.find((x) => x.what === 'batch report')!.text = labels!;
      written.push({ what: 'batch report, summary', text: summaryLines.join('\n') });
      // The day's reconciliation CSV is the worker's file too, in Windows-1251 for Russian Excel.
      written.push({
        what: 'reconciliation CSV',
        text: iconv.decode(readFileSync(reconciliationCsv!), 'win1251'),
      });

      judge(
        ['ru', written, [...DATA, ...REPORT_FORMAT]],
        [lang, texts, [...DATA, ...REPORT_FORMAT, ...(lang === 'en' ? wordsOf('сто рублей') : [])]],
      );
    },
    workTimeout({ units: 1, perUnitMs: 300_000, floorMs: 900_000 }),
  );

  it.each(['ru', 'en'] as const)(
    'in %s: passkeys, sign-in locks, templates, 413, and submit, watch, schedules, events and the demo',
    async (lang) => {
      const base = consoles.get(lang)!.url;
      const { texts, read, cli, cliWith, cliEnv } = walker(lang);
      // Files in the batch format, whose headers are Russian whatever the console's language.
      const files: typeof texts = [];
      const dir = mkdtempSync(join(tmpdir(), `payrun-words-${lang}-`));
      const prefix = uniquePrefix();
      /** A page's words Chromium does not show yet: hidden parts, and what its script says (data-*). */
      const readUnshown = async (page: Page, what: string) => {
        // Codes and addresses the script reads, not words it shows.
        const codes = new Set(['data-csrf', 'data-decision', 'data-lang', 'data-passkey', 'data-options']);
        const data = await page.$$eval('*', (els) =>
          els.flatMap((e) =>
            e
              .getAttributeNames()
              .filter((n: string) => n.startsWith('data-'))
              .map((n: string) => [n, e.getAttribute(n) ?? ''] as const),
          ),
        );
        const said = data.filter(([n]) => !codes.has(n)).map(([, v]) => v);
        texts.push({
          what: `${what} (hidden and script words)`,
          text: [(await page.textContent('body')) ?? '', ...said].join('\n'),
        });
      };

      // Passkeys while the policy names no console site: the page says what an admin must add first.
      const preparer = await signIn(lang, 'preparer');
      await preparer.goto(`${base}/passkeys`);
      await read(preparer, 'passkeys page, no console site');

      // Both templates, downloaded from the upload page's links.
      await preparer.goto(`${base}/upload`);
      for (const [link, encoding] of [
        ['#template-utf8', 'utf8'],
        ['#template-cp1251', 'win1251'],
      ] as const) {
        const [download] = await Promise.all([preparer.waitForEvent('download'), preparer.click(link)]);
        files.push({
          what: `template ${download.suggestedFilename()}`,
          text: iconv.decode(readFileSync((await download.path())!), encoding),
        });
      }

      // A form over the console's 1 MB, posted by Chromium: the page it shows is the console's 413.
      await preparer.goto(`${base}/search`);
      await preparer.$eval('form[action="/search"]', (f) => f.setAttribute('novalidate', ''));
      await preparer.$eval('#q', (q) => {
        q.removeAttribute('maxlength');
        q.setAttribute('value', 'x'.repeat(1_200_000));
      });
      const [tooLarge] = await Promise.all([
        preparer.waitForNavigation(),
        preparer.click('form[action="/search"] button'),
      ]);
      expect(tooLarge?.status()).toBe(413);
      await read(preparer, '413 page');

      // A login guessed at until it must wait: the sign-in page says so; an admin sees it and unlocks it.
      const guessed = `${prefix}-guess-1`;
      const guesser = await signInPage(lang);
      for (let i = 0; i < 12; i++) {
        await guesser.goto(`${base}/login`);
        await guesser.fill('#person', guessed);
        await guesser.fill('#password', 'не тот пароль');
        await clickAndLoad(guesser, 'form[action="/login"] button');
      }
      await read(guesser, 'sign-in page, the login made to wait');
      const admin = await signIn(lang, ADMIN);
      await admin.goto(`${base}/admin/sign-in`);
      expect(await admin.textContent('#held')).toContain(guessed);
      await read(admin, 'sign-in locks page');
      await clickAndLoad(admin, `#held form:has(input[value="${guessed}"]) button`);
      await read(admin, 'sign-in locks page, unlocked');

      // The console's site named in the policy (the console reads it at each request): the passkey page
      // offers to register one, the sign-in page to sign in with one. Then the policy as it was.
      writeTestPolicy({ rp_id: 'localhost', origin: base.replace('127.0.0.1', 'localhost') });
      try {
        await preparer.goto(`${base}/passkeys`);
        await read(preparer, 'passkeys page');
        await readUnshown(preparer, 'passkeys page');
        const withPasskeys = await signInPage(lang);
        await read(withPasskeys, 'sign-in page with passkeys');
        await readUnshown(withPasskeys, 'sign-in page with passkeys');
      } finally {
        writeTestPolicy();
      }

      // `batch submit`: a rejected file's errors row by row, the dry run, and a started file.
      const csv = (name: string, rows: CsvRow[]) => {
        const path = join(dir, name);
        writeFileSync(path, batchCsv(rows, { win1251: true }));
        return path;
      };
      const refs = [1, 2].map((i) => `${prefix}-${lang}-s${i}`);
      const rejected = await cli(
        'batch submit, rejected file',
        'preparer',
        'batch',
        'submit',
        csv('words-bad.csv', [{ reference: refs[0]!, amount: 'сто рублей' }, { reference: refs[1]! }]),
      );
      expect(rejected.code).toBe(1);
      const good = csv(
        'words-good.csv',
        refs.map((reference) => ({ reference })),
      );
      expect(
        (await cli('batch submit --dry-run', 'preparer', 'batch', 'submit', good, '--dry-run')).code,
      ).toBe(0);
      const started = await cli('batch submit', 'preparer', 'batch', 'submit', good);
      expect(started.stdout.trim()).toMatch(/^batch-/);

      // `payrun watch`: its first lines, then a file submitted, a file rejected, and the same bytes again.
      const watcher = spawnPayrunProcess(['watch', '--interval', '1'], cliEnv('watcher'));
      let watched = '';
      const heard = (b: Buffer) => (watched += b.toString('utf8'));
      watcher.stdout?.on('data', heard);
      watcher.stderr?.on('data', heard);
      const inbox = join(paths.batchesDir, 'inbox');
      mkdirSync(inbox, { recursive: true });
      const drop = (name: string, rows: CsvRow[]) => {
        // Written beside the inbox and renamed in: the watcher never sees half a file.
        const path = csv(name, rows);
        renameSync(path, join(inbox, name));
        return name;
      };
      const lineAbout = (name: string) =>
        waitFor(
          async () => watched.includes(name),
          workTimeout({ units: 1, perUnitMs: 30_000, floorMs: 60_000 }),
          `the watcher's line about ${name}`,
        );
      const watchRefs = [1, 2].map((i) => `${prefix}-${lang}-w${i}`);
      try {
        await waitFor(
          async () => watched.trim().split('\n').length >= 2,
          underLoad(60_000),
          'the watcher started and serving schedules',
        );
        const submitted = drop(
          `words-watch-${lang}-good.csv`,
          watchRefs.map((reference) => ({ reference })),
        );
        await lineAbout(submitted);
        const again = drop(
          `words-watch-${lang}-again.csv`,
          watchRefs.map((reference) => ({ reference })),
        );
        const bad = drop(`words-watch-${lang}-bad.csv`, [
          { reference: `${prefix}-${lang}-w3`, amount: 'сто рублей' },
        ]);
        await lineAbout(again);
        await lineAbout(bad);
      } finally {
        await killHard(watcher);
      }
      // Its logs (pino's JSON on stderr, the SDK's included) are for operators' collectors, not its words.
      const logLine = (line: string) => /^\{.*"level":/.test(line);
      texts.push({
        what: 'payrun watch',
        text: watched
          .split('\n')
          .filter((line) => !logLine(line))
          .join('\n'),
      });
      const rejectedDir = join(paths.batchesDir, 'rejected');
      const errorFiles = readdirSync(rejectedDir).filter(
        (n) => n.startsWith(`words-watch-${lang}-`) && n.endsWith('.errors.txt'),
      );
      expect(errorFiles).toHaveLength(2);
      for (const n of errorFiles)
        texts.push({ what: `the watcher's ${n}`, text: readFileSync(join(rejectedDir, n), 'utf8') });

      // Recurring payruns, as docs/batches.md "Recurring payruns" walks them.
      const schedule = `${prefix}-${lang}-1`;
      const template = csv('words-template.csv', [{ reference: `${prefix}-${lang}-m1` }]);
      const created = await cli(
        'schedule create',
        'preparer',
        'schedule',
        'create',
        schedule,
        '--file',
        template,
        '--days',
        '5,20',
      );
      expect(created.code).toBe(0);
      const taken = await cli(
        'schedule create, the name taken',
        'preparer',
        'schedule',
        'create',
        schedule,
        '--file',
        template,
        '--days',
        '5',
      );
      expect(taken.code).toBe(1);
      expect((await cli('schedule list', 'preparer', 'schedule', 'list')).stdout).toContain(schedule);
      await cli('schedule pause', 'preparer', 'schedule', 'pause', schedule, '--by', 'preparer');
      await cli('schedule list, paused', 'preparer', 'schedule', 'list');
      expect((await cli('schedule delete', 'preparer', 'schedule', 'delete', schedule)).code).toBe(0);

      // `events replay`: refused with no endpoint set, misused, an endpoint it does not know, and run.
      const secretFile = join(dir, 'event-secret');
      writeFileSync(secretFile, 's'.repeat(40));
      const withEndpoint = {
        ...cliEnv('viewer'),
        PAYRUN_EVENT_ENDPOINTS: JSON.stringify([
          // Nothing listens there: the stack's worker knows no endpoint and sends nothing.
          { name: 'erp-1', url: 'http://127.0.0.1:9/events', secretFile, types: ['payout.*'] },
        ]),
      };
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const replay = (what: string, runEnv: NodeJS.ProcessEnv, ...args: string[]) =>
        cliWith(what, runEnv, 'events', 'replay', ...args);
      expect((await replay('events replay, no endpoints', cliEnv('viewer'), '--since', since)).code).toBe(2);
      expect((await replay('events replay, not a time', withEndpoint, '--since', 'yesterday')).code).toBe(2);
      expect(
        (
          await replay(
            'events replay, unknown endpoint',
            withEndpoint,
            '--since',
            since,
            '--endpoint',
            'crm-2',
          )
        ).code,
      ).toBe(2);
      expect((await replay('events replay', withEndpoint, '--since', since)).code).toBe(0);

      // The worker refuses a resolution of a difference that is not there, in words (not its English).
      const resolve = await cli(
        'reconcile resolve, no such difference',
        'preparer',
        'reconcile',
        'resolve',
        DEPOSIT_ACCOUNT,
        `outside:${prefix}-1`,
        '--reason',
        'проверено по выписке',
      );
      expect(resolve.code).toBe(1);

      // Payouts whose runs closed with no outcome, as `payout status` and the payout page read them: one
      // stopped while it waited for approval (a person asks the bank), one stopped before any worker ran it.
      const stopped = payoutRequest({ reference: `${prefix}-${lang}-a1` });
      const waiting = await startPayout(stack, stopped, { ...FAST, requireApproval: true });
      await waitFor(
        async () => (await waiting.query(payoutStatusQuery)).state === 'awaiting_approval',
        workTimeout({ units: 1, perUnitMs: 30_000, floorMs: 60_000 }),
        'the hand-started payout waiting for approval',
      );
      await waiting.terminate('the language test stops it');
      const unrun = payoutRequest({ reference: `${prefix}-${lang}-n1` });
      await (
        await stack.client.workflow.start(payoutWorkflow, {
          taskQueue: `${prefix}-no-worker`,
          workflowId: payoutWorkflowId(unrun.reference),
          args: [{ request: unrun, options: FAST }],
        })
      ).terminate('the language test stops it');
      const viewer = await signIn(lang, 'viewer');
      for (const [what, reference] of [
        ['stopped while waiting for approval', stopped.reference],
        ['stopped before it ran', unrun.reference],
      ] as const) {
        await cli(`payout status, ${what}`, 'viewer', 'payout', 'status', reference);
        await viewer.goto(`${base}/payouts?reference=${encodeURIComponent(reference)}`);
        await read(viewer, `payout page, ${what}`);
      }

      // `make demo`'s lines, composed as src/demo/index.ts prints them (the demo itself is not run here).
      const like = (person: string, command: string) =>
        `PAYRUN_POLICY_FILE=/srv/.payrun/people/policy.yaml PAYRUN_PERSON=${person} bin/payrun ${command}`;
      texts.push({
        what: 'make demo',
        text: [
          demoLines.start('/srv/.payrun', '/srv/.payrun/logs', lang),
          ...demoLines.services(
            {
              temporalAddress: '127.0.0.1:7233',
              uiUrl: 'http://localhost:8233',
              sandboxUrl: 'http://127.0.0.1:8081',
              ingressUrl: 'http://127.0.0.1:8082',
              taskQueue: 'payrun-demo',
              codecUrl: 'http://127.0.0.1:8888',
              codecTokenFile: '/srv/.payrun/keys/codec-token',
              consoleUrl: 'http://127.0.0.1:8070',
            },
            lang,
          ),
          demoLines.submitted(
            {
              file: '/srv/.payrun/batches/inbox/demo-payouts-1.csv',
              batchId: 'batch-1a2b',
              valid: 30,
              invalid: 0,
              like: like('demo-preparer', 'batch submit --partial FILE'),
            },
            lang,
          ),
          demoLines.approved(
            commandAnswer('approved by demo-approver (1 of 1): paying may start', lang),
            like('demo-approver', 'batch approve batch-1a2b'),
            lang,
          ),
          demoLines.done(
            t(
              'summary.part',
              { state: 'succeeded', part: { count: 30, kopecks: 123_456, unreadable: 0 } },
              lang,
            ),
            lang,
          ),
          demoLines.files({ reportPath: '/srv/r.csv', summaryPath: '/srv/s.txt', summary: '' }, lang),
          demoLines.batchInUi('http://localhost:8233/namespaces/default/workflows/batch-1a2b', lang),
          demoLines.reconciled(true, lang),
          demoLines.reconciled(false, lang),
          demoLines.keep(lang),
          demoLines.stopping(lang),
          demoLines.interrupted(lang),
          demoLines.notStarted('rejected', lang),
          demoLines.notClean(lang),
          demoLines.failed('…', lang),
        ].join('\n'),
      });

      judge(
        // The template's currency is the format's code, as in the report (docs/batch-format.md).
        ['ru', files, ['RUB']],
        [
          lang,
          texts,
          [
            ...DATA,
            // The demo's logins and its password are identifiers of its own people (src/demo/lines.ts).
            ...DEMO_LOGINS.flatMap((l) => l.split('-')),
            ...DEMO_PASSWORD.split('-'),
            // The hand-started payouts' recipient and service (test/harness/payouts.ts).
            ...(lang === 'en' ? wordsOf('сто рублей', 'Иванова Анна Петровна Вёрстка макета') : []),
          ],
        ],
      );
    },
    workTimeout({ units: 1, perUnitMs: 300_000, floorMs: 900_000 }),
  );
});
