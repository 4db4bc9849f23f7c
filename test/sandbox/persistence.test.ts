import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CARDS } from '../../src/sandbox';
import { loadSandboxEnv } from '../../src/sandbox/main';
import { card, partnerKeys, PROJECT, rub, startTestSandbox } from './signed-client';

const T = { readyToConfirmMs: 60_000, paymentFinishedMs: 60_000 };
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('dataDir: bank keys generated once; sessions, ledger, idempotency and scheduled events survive a restart', async () => {
  const first = await startTestSandbox({ dataDir: dir, timings: T });
  expect(first.sb.bankPublicKeyPath).toBe(join(dir, 'bank-public.pem'));
  expect(readFileSync(join(dir, 'bank-public.pem'), 'utf8')).toBe(first.sb.bankPublicKeyPem);
  const body = { payment_method: card(TEST_CARDS.SUCCESS), amount_details: rub(4_200) };
  const r = await first.client.v1('session/init/payout', body, { idempotencyKey: 'persist-1' });
  await first.sb.advance(T.readyToConfirmMs);
  await first.client.v1('session/confirm', { session_id: r.body.session.id });
  await first.sb.close();
  expect(existsSync(join(dir, 'sandbox-state.json'))).toBe(true);

  const second = await startTestSandbox({ dataDir: dir, timings: T });
  expect(second.sb.bankPublicKeyPem).toBe(first.sb.bankPublicKeyPem);
  const replay = await second.client.v1('session/init/payout', body, { idempotencyKey: 'persist-1' });
  expect(replay.text).toBe(r.text);
  await second.sb.advance(T.paymentFinishedMs); // the finish event scheduled before the restart fires now
  const s = await second.client.v1('session/status', { session_id: r.body.session.id });
  expect(s.body.session.status).toBe('accepted');
  expect(second.sb.ledger()).toHaveLength(1);
  await second.sb.close();
});

test('runSandboxFromEnv configuration names every bad variable', () => {
  expect(() =>
    loadSandboxEnv({
      SANDBOX_PORT: 'x',
      SANDBOX_WEBHOOK_URL: 'not a url',
      SANDBOX_OPTIONAL_WEBHOOKS: 'maybe',
    }),
  ).toThrow(
    /SANDBOX_PORT[\s\S]*SANDBOX_PROJECT_ID[\s\S]*SANDBOX_WEBHOOK_URL[\s\S]*SANDBOX_OPTIONAL_WEBHOOKS[\s\S]*SANDBOX_PARTNER_PUBLIC_KEY/,
  );
  const opts = loadSandboxEnv({
    SANDBOX_PROJECT_ID: PROJECT,
    SANDBOX_PARTNER_PUBLIC_KEY: partnerKeys().publicKey,
    SANDBOX_PORT: '0',
    SANDBOX_TIMINGS: '{"readyToConfirmMs":5}',
  });
  expect(opts.projects[0]!.id).toBe(PROJECT);
  expect(opts.port).toBe(0);
  expect(opts.timings).toEqual({ readyToConfirmMs: 5 });
});
