import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { hashPassword, totpCode } from '../../src/console/passwords';
import { startDevServer, type RunningDevServer } from '../../src/devserver';
import { writePolicy, type PersonSpec } from '../../src/policy/generate';
import { batchCsv, batchTestPaths, uniquePrefix } from '../harness/batches';
import { ConsoleBrowser, multipartUpload, type Answer } from '../harness/console-http';
import { spawnConsole, type ConsoleProcess } from '../harness/console-process';
import { startStack, TEST_PEOPLE, type Stack } from '../harness/stack';

/**
 * Sign-in that holds, against a real `payrun console` process, dev server and worker, over plain HTTP
 * from several loopback addresses (the console trusts no proxy: each address is a client of its own):
 * a login guessed from five addresses is locked and a colleague is not; an approver needs a second
 * factor; a changed password or a revocation ends the person's sessions; no URL the console produces
 * carries a CSRF token; every error is a page in the console's language; with Temporal stopped a page
 * says so within the console's bound.
 */
const PASSWORD = 'пароль-для-теста-1';
const NEW_PASSWORD = 'новый-пароль-для-теста-2';
const APPROVER_TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DP';

describe('console sign-in that holds', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let consoleApp: ConsoleProcess;
  let env: NodeJS.ProcessEnv = {};
  let people: PersonSpec[] = [];
  const prefix = uniquePrefix();

  beforeAll(async () => {
    stack = await startStack({ policy: {} }); // every file waits for an approver: the batch's forms show
    paths = batchTestPaths();
    const passwordHash = await hashPassword(PASSWORD);
    people = [
      ...TEST_PEOPLE.map((p) => ({
        ...p,
        passwordHash,
        ...(p.id === 'approver' ? { totp: APPROVER_TOTP } : {}),
      })),
      { id: 'admin', name: 'Анна Админова', roles: ['admin'], passwordHash },
      { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
    ];
    const written = writePolicy(stack.people.dir, people);
    env = {
      ...stack.workerEnv,
      PAYRUN_POLICY_FILE: written.file,
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
      PAYRUN_LANG: 'ru',
      PAYRUN_CONSOLE_SERVICE_ID: 'console',
      PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console!,
    };
    consoleApp = await spawnConsole(env);
  });
  afterAll(async () => {
    await consoleApp?.stop();
    await stack?.stop();
  });

  const browser = (address: string) => new ConsoleBrowser(consoleApp.url, address);

  test('30 wrong passwords for one person from 5 addresses lock that person, not a colleague; an admin unlocks', async () => {
    const attackers = [2, 3, 4, 5, 6].map((i) => browser(`127.0.0.${i}`));
    for (const a of attackers) await a.send('/login');
    const answers: Answer[] = [];
    for (let i = 0; i < 30; i++)
      answers.push(
        await attackers[i % 5]!.send('/login', {
          form: { person: 'preparer', password: `guess-${i}` },
        }),
      );
    // Six a minute from each address: the per-address limit (ten) never spoke; the per-login guard did
    // (a wrong password is 401; one inside the back-off or the lock, 429, its password never checked).
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    expect(answers.some((a) => a.text.includes('Подождите минуту'))).toBe(false);
    const last = answers.at(-1)!;
    expect(last.text).toMatch(
      /Вход для этого логина временно закрыт .* Попробуйте снова после \d\d:\d\d МСК \(через 1[45] мин\)/,
    );
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(14 * 60);

    // The right password from a fresh address: still locked (the password is not even checked).
    const owner = browser('127.0.0.7');
    const refused = await owner.signIn('preparer', PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('временно закрыт');
    expect(owner.hasSession()).toBe(false);

    // A colleague behind an attacker's address signs in.
    const colleague = attackers[0]!;
    const signedIn = await colleague.signIn('viewer', PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toBe('/batches');
    expect(colleague.hasSession()).toBe(true);

    // Only an admin sees the locks and lifts them.
    expect((await colleague.send('/admin/sign-in')).status).toBe(403);
    const admin = browser('127.0.0.8');
    expect((await admin.signIn('admin', PASSWORD)).status).toBe(303);
    const locks = await admin.send('/admin/sign-in');
    expect(locks.status).toBe(200);
    expect(locks.text).toMatch(/<td>preparer<\/td>\s*<td>заблокирован<\/td>/);
    const unlocked = await admin.send('/admin/sign-in/unlock', { form: { person: 'preparer' } });
    expect(unlocked.status).toBe(303);
    expect((await admin.send('/admin/sign-in')).text).toContain('Блокировка входа для preparer снята');
    expect((await owner.signIn('preparer', PASSWORD)).status).toBe(303);
  });

  test('an approver without a second factor is refused by default; one with TOTP needs the code', async () => {
    const b = browser('127.0.0.9');
    const refused = await b.signIn('approver2', PASSWORD); // the stack's approver2 has no TOTP secret
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Утверждающий входит с кодом из приложения');
    expect(b.hasSession()).toBe(false);
    const noCode = await b.signIn('approver', PASSWORD);
    expect(noCode.status).toBe(401);
  });

  test('no URL the console produces carries a CSRF token', async () => {
    const preparer = browser('127.0.1.1');
    expect((await preparer.signIn('preparer', PASSWORD)).status).toBe(303);
    const pages: { url: string; answer: Answer }[] = [];
    pages.push({ url: '/upload', answer: await preparer.send('/upload') });
    const upload = multipartUpload(preparer.csrf, {
      name: 'signin.csv',
      bytes: batchCsv([{ reference: `${prefix}-1` }, { reference: `${prefix}-2` }]),
    });
    const checked = await preparer.send('/upload', upload);
    expect(checked.status).toBe(200);
    pages.push({ url: 'POST /upload', answer: checked });
    const submitAt = /action="(\/uploads\/[0-9a-f]+\/submit)"/.exec(checked.text)![1]!;
    const submitted = await preparer.send(submitAt, { form: {} });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.location).toMatch(/^\/batches\/batch-/);

    // The same upload without its token field is refused before the file is read.
    const unsigned = multipartUpload(undefined, {
      name: 'x.csv',
      bytes: batchCsv([{ reference: `${prefix}-x` }]),
    });
    const noToken = await preparer.send('/upload', unsigned);
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('нет проверочного токена');
    // A token in the query string is not read at all.
    const inUrl = await preparer.send(`/upload?_csrf=${encodeURIComponent(preparer.csrf)}`, unsigned);
    expect(inUrl.status).toBe(403);

    const approver = browser('127.0.1.2');
    expect((await approver.signIn('approver', PASSWORD, totpCode(APPROVER_TOTP))).status).toBe(303);
    const viewer = browser('127.0.1.3');
    expect((await viewer.signIn('viewer', PASSWORD)).status).toBe(303);
    const admin = browser('127.0.1.4');
    expect((await admin.signIn('admin', PASSWORD)).status).toBe(303);
    const anonymous = browser('127.0.1.5');
    for (const who of [preparer, approver, viewer, admin, anonymous]) pages.push(...(await crawl(who)));

    const tokens = new Set<string>();
    const urls: { on: string; url: string }[] = [];
    for (const { url, answer } of pages) {
      urls.push({ on: url, url });
      if (typeof answer.headers.location === 'string') urls.push({ on: url, url: answer.headers.location });
      for (const [, attr] of answer.text.matchAll(/\b(?:href|action|src|formaction)="([^"]*)"/g))
        urls.push({ on: url, url: attr! });
      for (const [, token] of answer.text.matchAll(/name="_csrf" value="([^"]+)"/g)) tokens.add(token!);
      // A form holding a token sends it in its body only when it posts.
      for (const [form] of answer.text.matchAll(/<form\b[\s\S]*?<\/form>/g))
        if (form.includes('name="_csrf"'))
          expect({ on: url, form: /^<form[^>]*method="post"/.test(form) }).toEqual({ on: url, form: true });
    }
    expect(tokens.size).toBeGreaterThan(3);
    expect(pages.length).toBeGreaterThan(20);
    const carrying = urls.filter(
      ({ url }) =>
        /csrf/i.test(url) || [...tokens].some((t) => url.includes(t) || url.includes(encodeURIComponent(t))),
    );
    expect(carrying).toEqual([]);
    // The crawl reached the forms that matter: upload, submit, approve, pause, unlock, sign out.
    const actions = new Set(urls.map((u) => u.url.replace(/batch-[0-9a-f-]+|[0-9a-f]{32}/g, ':id')));
    for (const a of [
      '/upload',
      '/uploads/:id/submit',
      '/batches/:id/approve',
      '/batches/:id/pause',
      '/logout',
    ])
      expect([...actions]).toContain(a);
  });

  /** Every page reachable by links from the console's start pages, as this person sees them. */
  async function crawl(who: ConsoleBrowser): Promise<{ url: string; answer: Answer }[]> {
    const seen = new Set<string>();
    const queue = ['/', '/batches', '/upload', '/payouts', '/recipients', '/admin/sign-in', '/login'];
    const pages: { url: string; answer: Answer }[] = [];
    while (queue.length > 0 && pages.length < 60) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const answer = await who.send(url);
      pages.push({ url, answer });
      if (!/text\/html/.test(String(answer.headers['content-type']))) continue;
      for (const [, href] of answer.text.matchAll(/<a\b[^>]*href="(\/[^"#]*)"/g))
        if (!seen.has(href!.replace(/&amp;/g, '&'))) queue.push(href!.replace(/&amp;/g, '&'));
    }
    return pages;
  }

  test('a changed password ends the old session; so does a revocation, for good', async () => {
    const old = browser('127.0.3.1');
    expect((await old.signIn('viewer', PASSWORD)).status).toBe(303);
    const other = browser('127.0.3.2');
    expect((await other.signIn('admin', PASSWORD)).status).toBe(303);
    expect((await old.send('/batches')).status).toBe(200);

    const newHash = await hashPassword(NEW_PASSWORD);
    const rewrite = (change: (p: PersonSpec) => PersonSpec) =>
      writePolicy(stack.people.dir, (people = people.map(change)));
    rewrite((p) => (p.id === 'viewer' ? { ...p, passwordHash: newHash } : p));
    const after = await old.send('/batches');
    expect(after.status).toBe(302);
    expect(after.headers.location).toBe('/login');
    expect((await other.send('/batches')).status).toBe(200); // another person's session stays
    expect((await old.signIn('viewer', PASSWORD)).status).toBe(401);
    expect((await old.signIn('viewer', NEW_PASSWORD)).status).toBe(303);

    // Revoked, then restored: the session opened before does not come back.
    rewrite((p) => (p.id === 'admin' ? { ...p, revoked: '2020-01-01T00:00:00Z' } : p));
    expect((await other.send('/batches')).status).toBe(302);
    rewrite((p) => (p.id === 'admin' ? { ...p, revoked: undefined } : p));
    expect((await other.send('/batches')).status).toBe(302);
  });

  /** A page in the console's layout and language, not Fastify's words or JSON. */
  function expectPage(a: Answer, status: number, lang: 'ru' | 'en', ...words: string[]) {
    expect({ status: a.status, type: a.headers['content-type'] }).toEqual({
      status,
      type: 'text/html; charset=utf-8',
    });
    expect(a.text).toContain(`<html lang="${lang}">`);
    expect(a.text).toContain('<link rel="stylesheet" href="/static/console.css" />');
    for (const w of words) expect(a.text).toContain(w);
    expect(a.text).not.toMatch(
      /statusCode|Bad Request|Not Found|Payload Too Large|Header Fields|Error:|at \//,
    );
  }

  test('each error page is a page in Russian, in the layout of the person signed in', async () => {
    const b = browser('127.0.2.1');
    expect((await b.signIn('admin', PASSWORD)).status).toBe(303);
    const nav = 'Вы вошли как Анна Админова';
    expectPage(await b.send('/nowhere'), 404, 'ru', 'Ошибка 404', 'Страница не найдена', nav);
    expectPage(await b.send('/batches/%E0%A4%A'), 400, 'ru', 'Ошибка 400', 'Запрос не понят');
    const json = { headers: { 'content-type': 'application/json' }, body: '{"_csrf":' };
    expectPage(await b.send('/logout', json), 400, 'ru', 'Ошибка 400', 'Запрос не понят', nav);
    const big = {
      body: `_csrf=${'x'.repeat(2 * 1024 * 1024)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
    expectPage(await b.send('/logout', big), 413, 'ru', 'Ошибка 413', 'слишком велики', nav);
    const tooManyHeaders = { headers: { 'x-padding': 'x'.repeat(20_000) } };
    expectPage(
      await b.send('/batches', tooManyHeaders),
      431,
      'ru',
      'Ошибка 431',
      'Заголовки запроса слишком велики',
    );
    expectPage(
      await b.send('/logout', { body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      403,
      'ru',
      'нет проверочного токена',
      nav,
    );
    expect((await b.send('/batches')).status).toBe(200); // still signed in after all that
  });

  test('with the dev server stopped, a page says Temporal is unavailable within the bound (ru, en)', async () => {
    let server: RunningDevServer | undefined = await startDevServer();
    const own = (lang: string) =>
      spawnConsole({
        ...env,
        TEMPORAL_ADDRESS: server!.address,
        PAYRUN_DATA_DIR: mkdtempSync(join(tmpdir(), 'payrun-console-outage-')),
        PAYRUN_LANG: lang,
      });
    const consoles = [await own('ru'), await own('en')];
    try {
      const [ru, en] = consoles.map((c) => new ConsoleBrowser(c!.url, '127.0.4.1'));
      for (const b of [ru!, en!]) {
        expect((await b.signIn('preparer', PASSWORD)).status).toBe(303);
        expect((await b.send('/batches')).status).toBe(200);
      }
      await server.stop();
      server = undefined;
      // A payout looked up by reference (a Temporal call), then the batches list (a store read, then
      // Temporal for each batch's state): both say Temporal is unavailable, neither hangs.
      const lookup = await ru!.send('/payouts?reference=x-1');
      expectPage(lookup, 503, 'ru', 'Temporal недоступен', 'Консоль не может связаться с Temporal');
      expect(lookup.elapsedMs).toBeLessThan(5_000); // the console's own bound is 1.5 s
      const list = await ru!.send('/batches');
      expectPage(list, 503, 'ru', 'Temporal недоступен');
      expect(list.elapsedMs).toBeLessThan(5_000);
      process.stderr.write(
        `console with Temporal stopped: ${lookup.elapsedMs} ms, then ${list.elapsedMs} ms\n`,
      );
      // What needs no Temporal still works: the upload form.
      const upload = await ru!.send('/upload');
      expect(upload.status).toBe(200);
      expect(upload.elapsedMs).toBeLessThan(5_000);

      const downEn = await en!.send('/batches');
      expectPage(downEn, 503, 'en', 'Temporal unavailable', 'The console cannot reach Temporal');
      expect(downEn.elapsedMs).toBeLessThan(5_000);
      expectPage(await en!.send('/nowhere'), 404, 'en', 'Error 404', 'Page not found.');
      expectPage(
        await en!.send('/x', { headers: { 'x-padding': 'x'.repeat(20_000) } }),
        431,
        'en',
        'Error 431',
      );
      expectPage(await en!.send('/batches/%E0%A4%A'), 400, 'en', 'Error 400', 'not understood');
    } finally {
      for (const c of consoles) await c.stop();
      await server?.stop();
    }
  });
});
