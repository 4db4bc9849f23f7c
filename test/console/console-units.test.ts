import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config';
import { ServiceError } from '@temporalio/client';
import { consoleKey, Forbidden, type ConsoleContext } from '../../src/console/context';
import { describeConsoleError, isTemporalDown } from '../../src/console/errors';
import { MESSAGES } from '../../src/console/messages';
import { html, masked } from '../../src/console/html';
import { hashPassword, totpCode, totpStep, verifyPassword, verifyTotp } from '../../src/console/passwords';
import { SessionStore } from '../../src/console/sessions';
import { loadConsoleSettings } from '../../src/config';
import { loadPolicy } from '../../src/policy/file';
import { writePolicy } from '../../src/policy/generate';

/** The console's pure parts: passwords, TOTP, settings, escaping and masking, sessions, its identity check. */
describe('console passwords', () => {
  it('hashes with scrypt and verifies only the same password', async () => {
    const hash = await hashPassword('пароль бухгалтера');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    await expect(verifyPassword('пароль бухгалтера', hash)).resolves.toBe(true);
    await expect(verifyPassword('пароль бухгалтерa', hash)).resolves.toBe(false); // a Latin a
    expect(await hashPassword('x')).not.toBe(await hashPassword('x')); // salted
  });

  it('refuses a malformed hash instead of throwing', async () => {
    for (const bad of [
      '',
      'scrypt$',
      'bcrypt$1$2$3$a$b',
      'scrypt$16384$8$1$AAAA$AAAA',
      'scrypt$x$8$1$AAAA$AAAA',
    ])
      await expect(verifyPassword('x', bad)).resolves.toBe(false);
  });

  it('computes RFC 6238 codes (SHA-1 test vectors, last six digits) and accepts one step either side', () => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
    expect(totpCode(secret, 59_000)).toBe('287082');
    expect(totpCode(secret, 1_111_111_109_000)).toBe('081804');
    expect(totpCode(secret, 2_000_000_000_000)).toBe('279037');
    const now = 1_111_111_109_000;
    expect(verifyTotp(secret, '081804', now)).toBe(true);
    expect(verifyTotp(secret, '081 804', now + 30_000)).toBe(true);
    expect(verifyTotp(secret, '081804', now + 90_000)).toBe(false);
    expect(verifyTotp(secret, 'abcdef', now)).toBe(false);
    expect(totpStep(secret, '081804', now + 30_000)).toBe(Math.floor(now / 30_000));
  });
});

describe('console settings', () => {
  it('names every bad variable', () => {
    expect(() =>
      loadConsoleSettings({ PAYRUN_CONSOLE_PORT: 'eighty', PAYRUN_CONSOLE_SECURE_COOKIES: 'yes' }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          'PAYRUN_CONSOLE_PORT: a whole number from 0 to 65535, not "eighty"',
          expect.stringMatching(/^PAYRUN_CONSOLE_KEY_FILE: required/),
          'PAYRUN_CONSOLE_SECURE_COOKIES: true or false, not "yes"',
        ],
      }),
    );
  });

  it('has defaults for everything but the key', () => {
    expect(loadConsoleSettings({ PAYRUN_CONSOLE_KEY_FILE: 'k.pem' })).toEqual({
      host: '127.0.0.1',
      port: 8070,
      serviceId: 'console',
      keyFile: 'k.pem',
      sessionMinutes: 480,
      loginPerMinute: 10,
      secureCookies: true,
      trustProxy: false,
      lockAfter: 20,
      lockMinutes: 15,
      approverSecondFactor: 'required',
      apiPerMinute: 120,
    });
    expect(() =>
      loadConsoleSettings({ PAYRUN_CONSOLE_KEY_FILE: 'k.pem', PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'no' }),
    ).toThrow('PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: required or optional, not "no"');
  });
});

describe('console html', () => {
  it('escapes what it interpolates and masks long numbers in outside words', () => {
    expect(html`<p title="${'"x"'}">${'<b>&'}</p>`.value).toBe('<p title="&quot;x&quot;">&lt;b&gt;&amp;</p>');
    expect(html`${[html`<i>${1}</i>`, 2]}`.value).toBe('<i>1</i>2');
    expect(masked('карта 2200 0000 0000 0012 отклонена <b>').value).toBe(
      'карта **** **** **** 0012 отклонена &lt;b&gt;',
    );
  });
});

describe('console sessions', () => {
  it('forget a session at its expiry', () => {
    const store = new SessionStore(60_000);
    const s = store.create('maria', 'fingerprint', 0);
    expect(s.id).toMatch(/^[\w-]{43}$/);
    expect(store.get(s.id, 59_999)?.person).toBe('maria');
    expect(store.get(s.id, 60_000)).toBeUndefined();
    expect(store.get(s.id, 1)).toBeUndefined();
    expect(store.get(undefined)).toBeUndefined();
  });
});

describe('the console’s identity', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-console-'));
  const written = writePolicy(dir, [
    { id: 'console', name: 'Консоль', roles: ['authenticator'] },
    { id: 'viewer', name: 'Вера', roles: ['viewer'] },
  ]);
  const policy = loadPolicy({ PAYRUN_POLICY_FILE: written.file });
  const settings = loadConsoleSettings({ PAYRUN_CONSOLE_KEY_FILE: written.keyFiles.console });

  it('is a person with role authenticator whose key the policy lists', () => {
    expect(consoleKey(settings, policy).asymmetricKeyType).toBe('ed25519');
  });

  it('is refused, naming the variable, when any of that is not so', () => {
    const refusal = (s: typeof settings) => {
      try {
        consoleKey(s, policy);
      } catch (err) {
        return (err as ConfigError).problems[0];
      }
    };
    expect(refusal({ ...settings, serviceId: 'nobody' })).toMatch(
      /^PAYRUN_CONSOLE_SERVICE_ID: nobody is not a person/,
    );
    expect(refusal({ ...settings, serviceId: 'viewer', keyFile: written.keyFiles.viewer! })).toMatch(
      /needs the role authenticator/,
    );
    expect(refusal({ ...settings, keyFile: written.keyFiles.viewer! })).toMatch(
      /^PAYRUN_CONSOLE_KEY_FILE: .* is not one of console's keys/,
    );
    expect(refusal({ ...settings, keyFile: join(dir, 'missing.pem') })).toMatch(/cannot read/);
  });
});

describe('console error pages', () => {
  // Only the catalogue is read: a context of the two languages' words is enough.
  const ctxOf = (lang: 'ru' | 'en') => ({ m: MESSAGES[lang], lang }) as unknown as ConsoleContext;
  const grpc = (code: number) =>
    Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code,
      details: '',
      metadata: {},
    });

  it('words every status from the catalogue, never the error’s own', () => {
    const ru = ctxOf('ru');
    const fastify = (statusCode: number, code: string) =>
      Object.assign(new Error('Body is too large'), { statusCode, code });
    expect(describeConsoleError(ru, fastify(413, 'FST_ERR_CTP_BODY_TOO_LARGE'))).toEqual({
      status: 413,
      heading: 'Ошибка 413',
      message: MESSAGES.ru.errors.tooLarge,
    });
    expect(describeConsoleError(ru, fastify(400, 'FST_ERR_CTP_INVALID_JSON_BODY')).message).toBe(
      MESSAGES.ru.errors.badRequest,
    );
    expect(describeConsoleError(ru, fastify(403, 'FST_CSRF_INVALID_TOKEN')).message).toBe(MESSAGES.ru.csrf);
    expect(describeConsoleError(ru, new Forbidden('Недостаточно прав: x.')).message).toBe(
      'Недостаточно прав: x.',
    );
    expect(describeConsoleError(ru, new Error('ENOENT: /secret/path'))).toEqual({
      status: 500,
      heading: 'Ошибка 500',
      message: MESSAGES.ru.internalError,
    });
    expect(describeConsoleError(ctxOf('en'), fastify(431, 'X')).heading).toBe('Error 431');
  });

  it('says Temporal is unavailable for gRPC UNAVAILABLE and DEADLINE_EXCEEDED, wrapped or not', () => {
    const en = ctxOf('en');
    for (const err of [
      grpc(14),
      grpc(4),
      new ServiceError('Failed to connect', { cause: grpc(14) }),
      new Error('query failed', { cause: new ServiceError('x', { cause: grpc(4) }) }),
    ])
      expect(describeConsoleError(en, err)).toMatchObject({ status: 503, heading: 'Temporal unavailable' });
    expect(isTemporalDown(grpc(5))).toBe(false); // NOT_FOUND is an answer, not an outage
  });
});
