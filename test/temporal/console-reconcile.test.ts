import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/console/passwords';
import { writePolicy, type PersonSpec } from '../../src/policy/generate';
import { addDays, dayStartMs, moscowDay } from '../../src/reconcile/days';
import { reconcileStoreFor } from '../../src/reconcile/store/open';
import { launchChromium } from '../harness/browser';
import { workTimeout } from '../harness/budget';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { SoftPasskey } from '../harness/passkeys';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { QUICK_WAIT, reconcileDayNow, sandboxAdmin } from '../harness/reconciliation';
import { NO_APPROVALS, startStack, TEST_PEOPLE, type Stack } from '../harness/stack';

/**
 * Issue 39 (and 37's proof download), in headless Debian chromium against the real dev server, sandbox,
 * worker and `payrun console`: a day with a planted outside debit is reconciled; a viewer sees the day and
 * the difference but cannot resolve it; an approver resolves it with a reason signed by their passkey (the
 * worker judges it, as for `payrun reconcile resolve`) and downloads the day's 1C file and report as the
 * worker wrote them; an auditor (viewer) downloads the paid payout's proof, which verifies under the bank's
 * key; a preparer gets no proof.
 */
const PASSWORD = 'пароль-для-сверки-1';
// A deposit account of this file's own: reconciliation workflow ids name the account and the day.
const ACCOUNT = '40702810700000000079';

describe('reconciliation and proofs in the console', () => {
  let stack: Stack;
  let dataDir: string;
  let consoleApp: ConsoleProcess;
  let browser: Browser;
  let origin = '';
  let day = '';
  let reference = '';
  const contexts: BrowserContext[] = [];
  const approverKey = new SoftPasskey('es256');

  beforeAll(
    async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'payrun-console-recon-'));
      process.env.PAYRUN_DATA_DIR = dataDir;
      stack = await startStack({ sandbox: { accounts: { deposit: ACCOUNT } } });
      const passwordHash = await hashPassword(PASSWORD);
      const people: PersonSpec[] = [
        ...TEST_PEOPLE.map((p) => ({
          ...p,
          passwordHash,
          ...(p.id === 'approver' ? { passkeys: [approverKey.line()] } : {}),
        })),
        { id: 'console', name: 'Консоль', roles: ['authenticator'] },
      ];
      // The stack's own policy file (the worker reads it again on change): its rules, plus the console.
      const write = (webauthn?: { rp_id: string; origin: string }) =>
        writePolicy(stack.people.dir, people, NO_APPROVALS, webauthn ? { webauthn } : {});
      const written = write();
      consoleApp = await spawnConsole({
        ...stack.workerEnv,
        PAYRUN_POLICY_FILE: written.file,
        PAYRUN_DATA_DIR: dataDir,
        PAYRUN_BATCHES_DIR: join(dataDir, 'batches'),
        PAYRUN_LANG: 'ru',
        PAYRUN_CONSOLE_SERVICE_ID: 'console',
        PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
        PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'optional',
      });
      // WebAuthn refuses an IP address as a relying party: the browser comes by the name localhost.
      origin = consoleApp.url.replace('127.0.0.1', 'localhost');
      write({ rp_id: 'localhost', origin });
      approverKey.rp = { rpId: 'localhost', origin };
      browser = await launchChromium();

      // A paid payout, and an outside debit the same day: reconciled, one open difference.
      day = moscowDay((await sandboxAdmin(stack, 'clock')).now_ms as number);
      const request = payoutRequest({ selfEmployed: false });
      reference = request.reference;
      expect((await outcome(await startPayout(stack, request))).state).toBe('succeeded');
      await sandboxAdmin(stack, 'outside-payout', { amount: 777_700, session: false });
      await sandboxAdmin(stack, 'clock/advance', {
        to: new Date(dayStartMs(addDays(day, 1)) + 3_600_000).toISOString(),
      });
      const result = await reconcileDayNow(stack, day, QUICK_WAIT, ACCOUNT);
      expect(result).toMatchObject({ outcome: 'reconciled', found: 1 });
    },
    workTimeout({ units: 1, perUnitMs: 120_000, floorMs: 180_000 }),
  );
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await consoleApp?.stop();
    await stack?.stop();
  });

  const url = (path: string) => `${origin}${path}`;

  async function signIn(
    person: string,
    passkey?: SoftPasskey,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    if (passkey) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable', { enableUI: false });
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      await cdp.send('WebAuthn.addCredential', {
        authenticatorId,
        credential: {
          credentialId: Buffer.from(passkey.id, 'base64url').toString('base64'),
          isResidentCredential: true,
          rpId: 'localhost',
          privateKey: passkey.pkcs8(),
          userHandle: Buffer.from(passkey.id).toString('base64'),
          signCount: 0,
        },
      });
    }
    await page.goto(url('/login'));
    await page.fill('#person', person);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
    expect(page.url()).toMatch(/\/batches$/);
    return { context, page };
  }

  const download = async (page: Page, selector: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return readFileSync((await file.path())!);
  };
  const text = (page: Page, selector: string) =>
    page.$eval(selector, (e) =>
      (e as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim(),
    );

  test('a viewer sees the day and its difference, and may not resolve it', async () => {
    const { context, page } = await signIn('viewer');
    await page.goto(url('/reconciliation'));
    expect(await text(page, `#days-${ACCOUNT}`)).toContain(`${day} сверен, с расхождениями (открытых: 1)`);
    const open = await text(page, `#open-${ACCOUNT}`);
    expect(open).toContain('списание в выписке, которого payrun не делал');
    expect(open).toContain('выяснить, кто провёл платёж мимо payrun');
    expect(await page.$(`#open-${ACCOUNT} form.resolve`)).toBeNull();
    expect(await text(page, '#recon-hint')).toContain('вам доступен просмотр');
    const key = Object.keys(await reconcileStoreFor(dataDir).readDifferences(ACCOUNT))[0]!;
    const token = await page.inputValue('form[action="/logout"] input[name="_csrf"]');
    const tried = await context.request.post(
      url(`/reconciliation/${ACCOUNT}/${encodeURIComponent(key)}/resolve`),
      {
        form: { _csrf: token, reason: 'смотрю' },
      },
    );
    expect(tried.status()).toBe(403);
    expect((await reconcileStoreFor(dataDir).readDifferences(ACCOUNT))[key]!.state).toBe('open');
  });

  test(
    'an approver resolves it with a passkey-signed reason, and downloads the 1C file and the report',
    async () => {
      const { page } = await signIn('approver', approverKey);
      await page.goto(url('/reconciliation'));
      const oneC = await download(page, `a[href="/reconciliation/${ACCOUNT}/days/${day}/1c.txt"]`);
      const report = await download(page, `a[href="/reconciliation/${ACCOUNT}/days/${day}/report.csv"]`);
      const written = (await reconcileStoreFor(dataDir).readDayOutcome(ACCOUNT, day))!.files!;
      expect(oneC.equals(readFileSync(written.oneC))).toBe(true);
      expect(oneC.subarray(0, 20).toString('latin1')).toBe('1CClientBankExchange');
      expect(report.equals(readFileSync(written.csv))).toBe(true);

      await page.fill(
        `#open-${ACCOUNT} form.resolve input[name="reason"]`,
        'платёж бухгалтерии вручную, счёт 17',
      );
      // The passkey signs in the page's script, which then posts the form: the next page says what happened.
      await page.click(`#open-${ACCOUNT} form.resolve button`);
      await page.waitForSelector('.flash', { timeout: 60_000 }).catch(async (err: Error) => {
        throw new Error(`${err.message}; the page says: ${await page.textContent('#passkey-status')}`);
      });
      expect(await text(page, '.flash')).toMatch(/закрыто, approver: платёж бухгалтерии вручную/);
      expect(await text(page, `#resolved-${ACCOUNT}`)).toContain('закрыл Олег Утвердилов');
      expect(await text(page, `#days-${ACCOUNT}`)).toContain(`${day} сверен, расхождений нет`);
      // The worker kept the person's own passkey answer as the evidence, not a console signature.
      const [record] = Object.values(await reconcileStoreFor(dataDir).readDifferences(ACCOUNT));
      expect(record).toMatchObject({ state: 'resolved', resolved: { by: 'approver' } });
      expect(record!.resolved!.statement?.passkey?.credentialId).toBe(approverKey.id);
      expect(record!.resolved!.statement?.statement.via).toBeUndefined();
    },
    workTimeout({ units: 1, perUnitMs: 60_000, floorMs: 90_000 }),
  );

  test(
    "an auditor downloads a paid payout's proof, which verifies under the bank's key; a preparer gets none",
    async () => {
      const { page } = await signIn('viewer');
      await page.goto(url(`/payouts?reference=${reference}`));
      const files: Record<string, Buffer> = {};
      for (const f of ['body.json', 'signature.bin', 'bank-public.pem', 'VERIFY.txt'])
        files[f] = await download(page, `#proof a[href$="/proof/${f}"]`);
      const key = createPublicKey(files['bank-public.pem']!);
      expect(
        key.export({ type: 'spki', format: 'pem' }).toString() ===
          createPublicKey(stack.sandbox.bankPublicKeyPem).export({ type: 'spki', format: 'pem' }).toString(),
      ).toBe(true);
      expect(verify('sha256', files['body.json']!, key, files['signature.bin']!)).toBe(true);
      expect(JSON.parse(files['body.json']!.toString())).toMatchObject({ type: 'payment_finished' });
      expect(files['VERIFY.txt']!.toString()).toContain(
        'openssl dgst -sha256 -verify bank-public.pem -signature signature.bin body.json',
      );

      const preparer = await signIn('preparer');
      await preparer.page.goto(url(`/payouts?reference=${reference}`));
      expect(await preparer.page.$('#proof')).toBeNull();
      const refused = await preparer.context.request.get(url(`/payouts/${reference}/proof/body.json`));
      expect(refused.status()).toBe(403);
    },
    workTimeout({ units: 1, perUnitMs: 60_000, floorMs: 90_000 }),
  );
});
