import { SANDBOX_PROFILES, TEST_CARDS, type RunningSandbox } from '../../src/sandbox';
import { loadSandboxEnv } from '../../src/sandbox/main';
import {
  card,
  partnerKeys,
  PROJECT,
  rub,
  startTestSandbox,
  TEST_WEBHOOK_TIMEOUT_MS,
  waitFor,
  WebhookReceiver,
} from './signed-client';

const REALISTIC = SANDBOX_PROFILES.realistic;
let sb: RunningSandbox | undefined;
let hooks: WebhookReceiver | undefined;
afterEach(async () => {
  await sb?.close();
  await hooks?.close();
  sb = hooks = undefined;
});

const payout = () => ({ payment_method: card(TEST_CARDS.SUCCESS), amount_details: rub(150_000) });

test('the realistic profile: ~200 ms per call, ~2 s before each webhook; the numbers docs/sandbox.md gives', () => {
  expect(REALISTIC.apiLatencyMs).toBe(200);
  expect(REALISTIC.readyToConfirmMs).toBe(2_000);
  expect(REALISTIC.paymentFinishedMs).toBe(2_000);
  expect(SANDBOX_PROFILES.instant.apiLatencyMs).toBe(0);
});

test('realistic: every partner call is held the latency; webhooks come the delay after the call that causes them', async () => {
  hooks = await new WebhookReceiver().start();
  const started = await startTestSandbox({ profile: 'realistic', webhookUrl: hooks.url });
  sb = started.sb;
  const { client } = started;
  expect(sb.sandbox.timings).toEqual({ ...REALISTIC, webhookTimeoutMs: TEST_WEBHOOK_TIMEOUT_MS });

  // A read, a refused call and a write: each one waits, whatever it answers.
  let t = performance.now();
  const unknown = await client.v1('session/status', { session_id: 'ps_nope' });
  expect(unknown.status).toBe(404);
  expect(performance.now() - t).toBeGreaterThanOrEqual(REALISTIC.apiLatencyMs);

  const created = performance.now();
  const init = await client.v1('session/init/payout', payout(), { idempotencyKey: 'profile-1' });
  expect(init.status).toBe(200);
  expect(performance.now() - created).toBeGreaterThanOrEqual(REALISTIC.apiLatencyMs);
  const sessionId = init.body.session.id as string;

  const ready = await waitFor(
    () => hooks!.ofType('ready_to_confirm').length > 0 && performance.now(),
    10_000,
  );
  expect(ready - created).toBeGreaterThanOrEqual(REALISTIC.readyToConfirmMs);

  t = performance.now();
  const confirmed = await client.v1(
    'session/confirm',
    { session_id: sessionId },
    { idempotencyKey: 'profile-c1' },
  );
  expect(confirmed.status).toBe(200);
  const answered = performance.now();
  expect(answered - t).toBeGreaterThanOrEqual(REALISTIC.apiLatencyMs);
  const finished = await waitFor(
    () => hooks!.ofType('payment_finished').length > 0 && performance.now(),
    10_000,
  );
  expect(finished - t).toBeGreaterThanOrEqual(REALISTIC.paymentFinishedMs);
  expect(sb.ledger().filter((e) => e.kind === 'payout')).toHaveLength(1);
});

test('the default stays instant, and explicit timings override a profile', async () => {
  ({ sb } = await startTestSandbox());
  expect(sb.sandbox.timings).toEqual({
    ...SANDBOX_PROFILES.instant,
    webhookTimeoutMs: TEST_WEBHOOK_TIMEOUT_MS,
  });
  await sb.close();
  ({ sb } = await startTestSandbox({ profile: 'realistic', timings: { apiLatencyMs: 5 } }));
  expect(sb.sandbox.timings).toEqual({
    ...REALISTIC,
    apiLatencyMs: 5,
    webhookTimeoutMs: TEST_WEBHOOK_TIMEOUT_MS,
  });
});

test('SANDBOX_PROFILE picks the profile; anything else is a configuration error naming the variable', () => {
  const base = { SANDBOX_PROJECT_ID: PROJECT, SANDBOX_PARTNER_PUBLIC_KEY: partnerKeys().publicKey };
  expect(loadSandboxEnv(base).profile).toBe('instant');
  expect(loadSandboxEnv({ ...base, SANDBOX_PROFILE: 'realistic' }).profile).toBe('realistic');
  expect(() => loadSandboxEnv({ ...base, SANDBOX_PROFILE: 'slow' })).toThrow(/SANDBOX_PROFILE/);
});
