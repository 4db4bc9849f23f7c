import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchPaths } from '../../src/batch/services/config';
import { hashPassword, totpCode } from '../../src/console/passwords';
import { writePolicy } from '../../src/policy/generate';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import { moscowDay } from '../../src/reconcile/days';
import { batchProgressQuery } from '../../workflows/batch/contract';
import { batchCsv, batchHandle, batchTestPaths, readReport, uniquePrefix } from '../harness/batches';
import { launchChromium } from '../harness/browser';
import { workTimeout } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { foreignWords, wordsOf, type Language } from '../harness/language';
import { DEPOSIT_ACCOUNT } from '../harness/reconciliation';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/**
 * Issue 39's language test: what a person reads on payrun's own surfaces is in the language set, and
 * nothing of the other one outside the bank's quoted words and identifiers (test/harness/language.ts).
 * Per language, a console in Chromium (login, upload, a rejected file's check page, a good file's check
 * page and dry run, the batch page waiting for approval and at «1 из 2», the list, the finished batch
 * with a bank-declined row and its audit, the payout page, a recipient, a missing page) and the commands
 * of the documented flow (`batch status`, `batch audit`, `batch report`, `payout status`, `recipient
 * show`, an approval's answer, `batch retry-failed` and `batch cancel` of the retry, `receipts to-annul`,
 * `batch cancel-scheduled` refusing), the summary, and the report's reasons.
 */
const PASSWORD = 'пароль-для-теста-1';
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

  beforeAll(async () => {
    stack = await startStack({ policy: { two_approvers_above: '1,00' } });
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    const written = writePolicy(
      stack.people.dir,
      [
        ...TEST_PEOPLE.map((p) => ({
          ...p,
          passwordHash,
          ...(p.id in TOTP ? { totp: TOTP[p.id as keyof typeof TOTP] } : {}),
        })),
        { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
      ],
      { two_approvers_above: '1,00' },
      CONSOLE_SIGNS_DECISIONS,
    );
    env = {
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
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

  /** Every text read, by where it was read; judged at the end so one run names every stray word. */
  function judge(lang: Language, texts: { what: string; text: string }[], allowed: string[]) {
    const found = texts.flatMap(({ what, text }) =>
      foreignWords(text, lang, allowed).map(
        (f) => `${what}: «${f.word}» in …${f.near.replace(/\s+/g, ' ')}…`,
      ),
    );
    expect(found).toEqual([]);
  }

  it.each(['ru', 'en'] as const)(
    'in %s: console pages, commands, report, summary and audit',
    async (lang) => {
      const base = consoles.get(lang)!.url;
      const cliEnv = (person: string) => ({ ...stack.cliEnv(person), ...env, PAYRUN_LANG: lang });
      const texts: { what: string; text: string }[] = [];
      const read = async (page: Page, what: string) => {
        texts.push({ what, text: `${await page.title()}\n${await page.innerText('body')}` });
      };
      const cli = async (what: string, person: string, ...args: string[]) => {
        const r = await runCli(args, cliEnv(person));
        texts.push({ what, text: `${r.stdout}\n${r.stderr}` });
        return r;
      };

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
      judge('ru', written, [...DATA, ...REPORT_FORMAT]);

      judge(lang, texts, [...DATA, ...REPORT_FORMAT, ...(lang === 'en' ? wordsOf('сто рублей') : [])]);
    },
    workTimeout({ units: 1, perUnitMs: 300_000, floorMs: 900_000 }),
  );
});
