import { underLoad } from '../harness/budget';
import { readFileSync } from 'node:fs';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchPaths } from '../../src/batch/services/config';
import { sendBatchDecision } from '../../src/batch/commands/decide';
import { subjectOf } from '../../src/batch/services/authorize';
import { batchStoreFor } from '../../src/batch/store/open';
import { hashPassword } from '../../src/console/passwords';
import { parsePolicy } from '../../src/policy/file';
import { writePolicy, type PersonSpec, type PolicyPasskeySpec } from '../../src/policy/generate';
import { signerFromKeyFile, signStatement } from '../../src/policy/keys';
import type { BatchStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { launchChromium } from '../harness/browser';
import { runCli } from '../harness/cli-process';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { SoftPasskey, type AnswerOptions } from '../harness/passkeys';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';

/**
 * Passkeys, end to end, in headless Debian chromium with a virtual authenticator (DevTools protocol:
 * ctap2, internal, user verification on) against the real dev server, sandbox, worker and `payrun console`:
 * an approver registers a passkey, an admin adds it with `payrun people add-passkey`, a preparer uploads,
 * the console's key alone is refused, the approver approves with the passkey and the batch pays once.
 * Then every forged or bent answer is sent to a batch as it is and refused by its validator: nothing paid,
 * no Update in history. Two approvers above 5 000,00 ₽ (a test row is 1 500,00 ₽).
 */
const PASSWORD = 'пароль-для-ключей-1';

describe('approving with a passkey', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let consoleApp: ConsoleProcess;
  let browser: Browser;
  let policyFile = '';
  let env: NodeJS.ProcessEnv = {};
  let origin = '';
  const contexts: BrowserContext[] = [];
  const approver2 = new SoftPasskey('es256');
  const gone = new SoftPasskey('eddsa');
  const stranger = new SoftPasskey('es256');
  /** Signs in with a passkey only (no password in the policy); and a revoked person's passkey. */
  const keyholder = new SoftPasskey('es256');
  const left = new SoftPasskey('es256');
  let people: PersonSpec[] = [];
  let consoleKey = '';

  beforeAll(async () => {
    stack = await startStack({ policy: {} });
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    people = [
      ...TEST_PEOPLE.map((p) => ({
        ...p,
        passwordHash,
        ...(p.id === 'approver2' ? { passkeys: [approver2.line()] } : {}),
      })),
      {
        id: 'gone',
        name: 'Ушедший',
        roles: ['approver'],
        revoked: '2026-01-01T00:00:00Z',
        passkeys: [gone.line()],
      },
      { id: 'keyholder', name: 'Ключ Безпаролев', roles: ['approver'], passkeys: [keyholder.line()] },
      {
        id: 'left',
        name: 'Уволенный',
        roles: ['approver'],
        revoked: '2026-01-01T00:00:00Z',
        passkeys: [left.line()],
      },
      { id: 'console', name: 'Консоль', roles: ['authenticator'] },
    ];
    const write = (passkeys: PolicyPasskeySpec = {}) =>
      writePolicy(stack.people.dir, people, { two_approvers_above: '5 000,00' }, passkeys);
    const written = write();
    policyFile = written.file;
    consoleKey = written.keyFiles.console!;
    env = {
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_LANG: 'ru',
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: consoleKey,
      // Sign-in's second factor is console-signin.test.ts's subject; here the passkey signs the decision.
      PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'optional',
    };
    consoleApp = await spawnConsole(env);
    // WebAuthn refuses an IP address as a relying party: the browser comes by the name localhost, which
    // the policy (not the console) names as the one origin that counts.
    origin = consoleApp.url.replace('127.0.0.1', 'localhost');
    write({ webauthn: { rp_id: 'localhost', origin } });
    for (const key of [approver2, gone, stranger, keyholder, left]) key.rp = { rpId: 'localhost', origin };
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await consoleApp?.stop();
    await stack?.stop();
  });

  const url = (path: string) => `${origin}${path}`;

  async function signIn(person: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(url('/login'));
    await page.fill('#person', person);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
    expect(page.url()).toMatch(/\/batches$/);
    return { context, page };
  }

  const updatesInHistory = async (batchId: string) =>
    (await batchHandle(stack, batchId).fetchHistory()).events?.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes,
    ).length ?? 0;

  test(
    'a person registers a passkey, an admin adds it, the console’s key alone is refused, the passkey approves and the batch pays once',
    async () => {
      const approver = await signIn('approver');
      const cdp = await approver.context.newCDPSession(approver.page);
      await cdp.send('WebAuthn.enable', { enableUI: false });
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      await approver.page.goto(url('/passkeys'));
      expect(await approver.page.textContent('#passkeys-none')).toContain('нет ваших ключей');
      await approver.page.click('#passkey-register button');
      await approver.page.waitForSelector('#passkey-result', {
        state: 'visible',
        timeout: underLoad(30_000),
      });
      const line = await approver.page.inputValue('#passkey-line');
      expect(line).toMatch(/^passkey:es256:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/);
      expect(await approver.page.textContent('#passkey-command')).toBe(
        `payrun people add-passkey --person approver --passkey ${line}`,
      );

      const added = await runCli(
        ['people', 'add-passkey', '--person', 'approver', '--passkey', line, '--policy', policyFile],
        {},
      );
      expect(added).toMatchObject({ code: 0 });
      const listed = parsePolicy(readFileSync(policyFile, 'utf8'), policyFile).view.people.find(
        (p) => p.id === 'approver',
      );
      expect(listed?.passkeys?.map((k) => k.id)).toEqual([line.split(':')[2]]);

      // A preparer uploads through the console (console-signed: submitting stays a preparer's act).
      const prefix = uniquePrefix();
      const refs = [`${prefix}-1`, `${prefix}-2`];
      const preparer = await signIn('preparer');
      await preparer.page.goto(url('/upload'));
      await preparer.page.setInputFiles('#file', {
        name: 'ключи.csv',
        mimeType: 'text/csv',
        buffer: batchCsv(
          refs.map((reference) => ({ reference })),
          { win1251: true },
        ),
      });
      await Promise.all([
        preparer.page.waitForNavigation(),
        preparer.page.click('#upload-form button[type="submit"]'),
      ]);
      await Promise.all([
        preparer.page.waitForNavigation(),
        preparer.page.click('form[action$="/submit"] button'),
      ]);
      const batchId = preparer.page.url().split('/').pop()!;
      const handle = batchHandle(stack, batchId);
      await waitForProgress(
        handle,
        (p) => p.phase === 'awaiting_approval' && p.approval?.because !== undefined,
      );

      // The form posted without a passkey: the console signs with its own key, and the batch refuses it.
      const token = await approver.page.inputValue('form[action="/logout"] input[name="_csrf"]');
      // Past the confirm page (its figures given as that page gives them), so that the console would sign.
      const meta = await batchStoreFor(paths.dataDir).readMeta(batchId);
      const alone = await approver.context.request.post(url(`/batches/${batchId}/approve`), {
        form: {
          _csrf: token,
          confirm: '1',
          rows: String(meta.rowCount),
          total: String(meta.totalKopecks),
          content: meta.contentHash,
        },
      });
      expect(await alone.text()).toContain('подписано только ключом консоли (console)');
      expect(await updatesInHistory(batchId)).toBe(0);

      // The approver reviews what will be paid: every row, masked, with its amount, before the passkey.
      await approver.page.goto(url(`/batches/${batchId}`));
      const reviewed = await approver.page.$$eval('#rows tbody tr', (trs) =>
        trs.map((tr) =>
          [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.replace(/\s+/g, ' ').trim()).join(' '),
        ),
      );
      expect(reviewed).toHaveLength(2);
      for (const [i, reference] of refs.entries())
        expect(reviewed.find((r) => r.includes(reference))).toMatch(
          new RegExp(`^${i + 2} ${reference} Кузнецова Мария .*220000\\*{6}\\d{4} 1 500,00 ₽`),
        );
      await Promise.all([
        approver.page.waitForNavigation({ timeout: underLoad(60_000) }),
        approver.page.click('form[action$="/approve"] button'),
      ]);
      // The confirm page names the figures; confirming there asks the passkey.
      await Promise.all([
        approver.page.waitForNavigation({ timeout: underLoad(60_000) }),
        approver.page.click('#confirm-form button'),
      ]);
      expect(await approver.page.textContent('.flash')).toMatch(/Ответ пакета.*одобр/s);
      const done = await waitForProgress(handle, (p) => p.phase === 'done', underLoad(120_000));
      expect(done.approval?.approvedBy).toEqual(['approver']);
      expect([...ledgerPayouts(stack, refs).values()]).toEqual([1, 1]);
      const [stored] = (
        await batchStoreFor(paths.dataDir).readStatements(
          (await batchStoreFor(paths.dataDir).readMeta(batchId)).contentHash,
        )
      ).filter((s) => s.statement.decision === 'approve');
      expect(stored).toMatchObject({
        statement: { person: 'approver' },
        passkey: { credentialId: line.split(':')[2] },
      });
      expect(stored!.signature).toBeUndefined();
    },
    underLoad(300_000),
  );

  const submit = async (rows: number) => {
    const references = Array.from({ length: rows }, (_, i) => `${uniquePrefix()}-${i}`);
    const r = await dropAndSubmit(
      stack,
      paths,
      `${references[0]}.csv`,
      batchCsv(references.map((reference) => ({ reference }))),
      {
        submitter: stack.signer('preparer'),
      },
    );
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    await waitForProgress(
      batchHandle(stack, r.batchId),
      (p) => p.phase === 'awaiting_approval' && p.approval?.because !== undefined,
    );
    const meta = await batchStoreFor(paths.dataDir).readMeta(r.batchId);
    return { batchId: r.batchId, references, subject: subjectOf(meta) };
  };
  const statement = (
    subject: ReturnType<typeof subjectOf>,
    person: string,
    at = new Date(),
  ): BatchStatement => ({
    v: 1,
    kind: 'batch',
    decision: 'approve',
    ...subject,
    person,
    at: at.toISOString(),
  });
  const refusal = async (batchId: string, signed: SignedStatement): Promise<string> => {
    try {
      await sendBatchDecision(stack.client, batchId, signed as SignedStatement<BatchStatement>);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return err.cause?.message ?? err.message;
      throw err;
    }
    throw new Error('the decision was not refused');
  };

  test(
    'refused before history, nothing paid: the console key alone, bent answers, a stranger’s passkey, a revoked person, a replayed counter, one person twice',
    async () => {
      const first = await submit(2);
      const other = await submit(2);
      const s = statement(first.subject, 'approver2');
      const answer = (o: AnswerOptions = {}, st = s) => ({ statement: st, passkey: approver2.answer(st, o) });
      const consoleSigned = signStatement<BatchStatement>(
        signerFromKeyFile('approver2', consoleKey, 'console'),
        { kind: 'batch', decision: 'approve', ...first.subject },
      );
      const tampered = answer();
      const cases: [string, SignedStatement, RegExp][] = [
        ['the console key alone', consoleSigned, /console’s key alone/],
        [
          'another batch’s challenge',
          answer({ challengeOf: statement(other.subject, 'approver2') }),
          /another challenge/,
        ],
        ['another origin', answer({ origin: 'http://localhost:1' }), /another origin/],
        ['another relying party id', answer({ rpId: 'evil.example' }), /another relying party/],
        ['user verification off', answer({ flags: 0x01 }), /did not verify its user/],
        [
          'a tampered statement',
          { ...tampered, statement: { ...s, at: new Date(Date.parse(s.at) - 1000).toISOString() } },
          /another challenge/,
        ],
        [
          'a passkey not in the policy',
          { statement: s, passkey: stranger.answer(s) },
          /not one of approver2’s/,
        ],
        [
          'a revoked person',
          {
            statement: statement(first.subject, 'gone'),
            passkey: gone.answer(statement(first.subject, 'gone')),
          },
          /gone was revoked/,
        ],
      ];
      for (const [what, signed, why] of cases)
        expect([what, await refusal(first.batchId, signed)]).toEqual([what, expect.stringMatching(why)]);
      expect(await updatesInHistory(first.batchId)).toBe(0);

      // Under the two-approver rule (4 rows: 6 000,00 ₽), one person's passkey counts once.
      const big = await submit(4);
      const once = statement(big.subject, 'approver2');
      expect(
        await sendBatchDecision(stack.client, big.batchId, {
          statement: once,
          passkey: approver2.answer(once),
        }),
      ).toMatch(/approved by approver2 \(1 of 2\)/);
      const accepted = approver2.counter; // the counter the worker kept for this passkey
      const twice = statement(big.subject, 'approver2', new Date(Date.now() + 1000));
      expect(await refusal(big.batchId, { statement: twice, passkey: approver2.answer(twice) })).toMatch(
        /approver2 has already approved/,
      );

      // A counter that does not move past the one the worker accepted, on a batch that read it afterwards.
      const later = await submit(2);
      const replay = statement(later.subject, 'approver2');
      expect(
        await refusal(later.batchId, {
          statement: replay,
          passkey: approver2.answer(replay, { counter: accepted }),
        }),
      ).toMatch(/counter went back or repeated/);
      expect(await updatesInHistory(later.batchId)).toBe(0);

      const everyRef = [...first.references, ...other.references, ...big.references, ...later.references];
      expect([...ledgerPayouts(stack, everyRef).values()].every((n) => n === 0)).toBe(true);
      expect(
        (await waitForProgress(batchHandle(stack, big.batchId), () => true)).approval?.approvedBy,
      ).toEqual(['approver2']);
    },
    underLoad(300_000),
  );

  /** A fresh browser whose virtual authenticator holds `key` as a discoverable credential for localhost. */
  async function browserHolding(key: SoftPasskey, signCount = 0) {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
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
        credentialId: Buffer.from(key.id, 'base64url').toString('base64'),
        isResidentCredential: true,
        rpId: 'localhost',
        privateKey: key.pkcs8(),
        userHandle: Buffer.from(key.id).toString('base64'),
        signCount,
      },
    });
    const signCountNow = async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount;
    return { page, signCountNow };
  }

  /** Presses "Войти с ключом доступа" and waits for the page the console answers the posted answer with. */
  async function signInWithPasskey(page: Page) {
    await page.goto(url('/login'));
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/login/passkey'));
    const answered = page.waitForResponse((r) => r.url().endsWith('/login/passkey'), {
      timeout: underLoad(60_000),
    });
    // The script fetches the challenge, the authenticator answers, then the form posts: one navigation.
    await Promise.all([
      page.waitForNavigation({ timeout: underLoad(60_000) }),
      page.click('#passkey-signin button'),
    ]);
    const [request, response] = await Promise.all([posted, answered]);
    return { request, status: response.status() };
  }

  test('a person signs in with a passkey alone; a replay, a challenge not issued, a counter behind and a revoked person are refused', async () => {
    const store = batchStoreFor(paths.dataDir);
    const holder = await browserHolding(keyholder);
    const first = await signInWithPasskey(holder.page);
    expect(first.status).toBe(303);
    expect(holder.page.url()).toMatch(/\/batches$/);
    expect(await holder.page.textContent('.who')).toContain('Ключ Безпаролев');
    await holder.page.goto(url('/passkeys'));
    expect(await holder.page.textContent('#passkeys')).toContain(keyholder.id.slice(0, 16));
    // The counter the authenticator signed is claimed in the store, as an approval's is.
    const signed = await holder.signCountNow();
    expect(signed).toBeGreaterThan(0);
    expect((await store.passkeyCounters([keyholder.id]))[keyholder.id]).toBe(signed);

    // The same answer posted again, with the same cookies (challenge handle and CSRF secret): refused.
    const replay = await fetch(`${consoleApp.url}/login/passkey`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: (await first.request.allHeaders()).cookie!,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: first.request.postData()!,
    });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('Запрос на вход устарел или уже использован');
    expect(replay.headers.get('set-cookie') ?? '').not.toContain('payrun_session');

    // The browser answers a challenge the console never issued (the options' challenge swapped in transit).
    const swapped = await browserHolding(keyholder, signed);
    await swapped.page.route('**/login/passkey/options', async (route) => {
      const real = await route.fetch();
      const options = (await real.json()) as { challenge: string };
      options.challenge = Buffer.from('a challenge the console never gave').toString('base64url');
      await route.fulfill({ response: real, json: options });
    });
    expect((await signInWithPasskey(swapped.page)).status).toBe(401);
    expect(await swapped.page.textContent('.flash')).toContain('Ключ доступа не принят');
    expect(swapped.page.url()).toMatch(/\/login\/passkey$/);

    // A copy of the authenticator already used with higher counters elsewhere: this one is behind.
    expect(await store.advancePasskeyCounter(keyholder.id, 1_000_000)).toBe(true);
    const behind = await browserHolding(keyholder, signed + 5);
    expect((await signInWithPasskey(behind.page)).status).toBe(401);
    expect(await behind.page.textContent('.flash')).toContain('Счётчик ключа доступа не вырос');

    // A revoked person's passkey, valid in every other way.
    const revoked = await browserHolding(left);
    expect((await signInWithPasskey(revoked.page)).status).toBe(401);
    expect(await revoked.page.textContent('.flash')).toContain('Ключ доступа не принят');
    await revoked.page.goto(url('/batches'));
    expect(revoked.page.url()).toMatch(/\/login$/);
  }, 180_000);
});
