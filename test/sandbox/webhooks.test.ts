import { underLoad } from '../harness/budget';
import { TEST_AMOUNTS, TEST_CARDS, type RunningSandbox } from '../../src/sandbox';
import { WEBHOOK_RETRY_INTERVALS_MS } from '../../src/sandbox/webhooks/dispatcher';
import { card, rub, type SignedClient, startTestSandbox, WebhookReceiver } from './signed-client';

const T = {
  readyToConfirmMs: 60_000,
  paymentFinishedMs: 60_000,
  confirmationPayoutMs: 60_000,
  // The receiver shares this process: on a loaded machine its answer can come later than the bank's 5 s,
  // and the attempt would count as failed and be resent after the sandbox time these tests look at.
  webhookTimeoutMs: underLoad(30_000),
};
let sb: RunningSandbox;
let client: SignedClient;
let hooks: WebhookReceiver;

beforeEach(async () => {
  hooks = await new WebhookReceiver().start();
  ({ sb, client } = await startTestSandbox({ timings: T, webhookUrl: hooks.url }));
});
afterEach(async () => {
  await sb.close();
  await hooks.close();
});

const payout = (number: string, amount = 1000) => ({
  payment_method: card(number),
  amount_details: rub(amount),
});

test('retry schedule: growing intervals, none over 15 minutes, nothing after 30 minutes', async () => {
  hooks.status = () => 500;
  await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  await sb.advance(T.readyToConfirmMs);
  await sb.advance(45 * 60_000);
  const log = (await client.admin('webhooks')).attempts as {
    at: string;
    attempt: number;
    http_status: number;
  }[];
  const times = log.map((a) => Date.parse(a.at.replace(/(\.\d{3})\d{3}Z$/, '$1Z')));
  expect(log.every((a) => a.http_status === 500)).toBe(true);
  expect(log.length).toBe(8);
  expect(hooks.received).toHaveLength(8);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  expect(gaps).toEqual([10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 600_000]);
  for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeGreaterThanOrEqual(gaps[i - 1]!);
  expect(Math.max(...gaps)).toBeLessThanOrEqual(15 * 60_000);
  expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual(30 * 60_000);
  expect(gaps[0]).toBeGreaterThanOrEqual(WEBHOOK_RETRY_INTERVALS_MS[0]!);
  const deliveries = (await client.admin('webhooks')).deliveries;
  expect(deliveries[0].state).toBe('gave_up');
  await sb.advance(3 * 3600_000);
  expect(hooks.received).toHaveLength(8);
});

test('a receiver that recovers gets the event once more and no further', async () => {
  let n = 0;
  hooks.status = () => (++n <= 2 ? 503 : 200);
  await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  await sb.advance(T.readyToConfirmMs);
  await sb.advance(10 * 60_000);
  expect(hooks.received).toHaveLength(3);
  expect(new Set(hooks.received.map((w) => w.raw)).size).toBe(1);
  expect(hooks.verified(sb.bankPublicKeyPem)).toBe(true);
});

test('optional events only when enabled: confirmation_payout (fast / late / never)', async () => {
  sb.setWebhookUrl(hooks.url, true);
  const a = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  const late = await client.v1(
    'session/init/payout',
    payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.CONFIRMATION_PAYOUT_LATE),
  );
  const never = await client.v1('session/init/payout', payout(TEST_CARDS.CONFIRMATION_PAYOUT_NEVER));
  await sb.advance(T.readyToConfirmMs);
  for (const r of [a, late, never]) await client.v1('session/confirm', { session_id: r.body.session.id });
  await sb.advance(T.paymentFinishedMs + T.confirmationPayoutMs);
  let cp = hooks.ofType('confirmation_payout');
  expect(cp).toHaveLength(1);
  expect(cp[0]!.body).toMatchObject({
    type: 'confirmation_payout',
    event: "Funds credited recipient's account",
    session_id: a.body.session.id,
    transaction_id: a.body.session.payments[0].id,
  });
  expect(cp[0]!.body.event_date).toMatch(/Z$/);
  await sb.advance(6 * 86400_000);
  expect(hooks.ofType('confirmation_payout')).toHaveLength(1);
  await sb.advance(5 * 86400_000);
  cp = hooks.ofType('confirmation_payout');
  expect(cp.map((w) => w.body.session_id)).toEqual([a.body.session.id, late.body.session.id]);
});

test('nominal_topup on a deposit top-up; wallet/balance follows', async () => {
  const before = (await client.v1('wallet/balance', { request_datetime: '2026-11-22T10:00:00Z' })).body
    .wallets[0].amount_details.amount;
  const r = await client.admin('deposit', { add: 500_000 });
  expect(r.balance).toBe(before + 500_000);
  await sb.advance(1);
  const t = hooks.received.find((w) => w.body.doc_id);
  expect(t!.body).toMatchObject({
    amount: 500_000,
    currency: 'RUB',
    account_balance: before + 500_000,
    account_number: '40702810700000000002',
  });
  expect(hooks.verified(sb.bankPublicKeyPem)).toBe(true);
  const after = await client.v1('wallet/balance', { request_datetime: '2026-11-22T10:00:00Z' });
  expect(after.body.wallets[0].amount_details).toEqual(rub(before + 500_000));
});

test('webhook faults: drop, duplicate, delay', async () => {
  await client.admin('faults', {
    webhooks: [
      { kind: 'drop', types: ['ready_to_confirm'], times: 1 },
      { kind: 'duplicate', types: ['payment_finished'], times: 1 },
    ],
  });
  const r = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  await sb.advance(T.readyToConfirmMs);
  expect(hooks.ofType('ready_to_confirm')).toHaveLength(0);
  expect(
    (await client.v1('session/status', { session_id: r.body.session.id })).body.session.next_action,
  ).toBe('confirm');
  await client.v1('session/confirm', { session_id: r.body.session.id });
  await sb.advance(T.paymentFinishedMs);
  expect(hooks.ofType('payment_finished')).toHaveLength(2);
  expect(sb.ledger()).toHaveLength(1);
  await client.admin('faults', { webhooks: [{ kind: 'delay', delayMs: 120_000 }] });
  await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  await sb.advance(T.readyToConfirmMs);
  expect(hooks.ofType('ready_to_confirm')).toHaveLength(0);
  await sb.advance(120_000);
  expect(hooks.ofType('ready_to_confirm')).toHaveLength(1);
});

test('bank public key is served for the ingress', async () => {
  const pem = await client.admin('bank-public-key');
  expect(pem).toBe(sb.bankPublicKeyPem);
  expect(pem).toContain('BEGIN PUBLIC KEY');
});
