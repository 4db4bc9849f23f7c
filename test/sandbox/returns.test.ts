import { TEST_CARDS, type RunningSandbox } from '../../src/sandbox';
import { card, type J, rub, type SignedClient, startTestSandbox, WebhookReceiver } from './signed-client';

// A payout of any method comes back N sandbox-days later, told by webhook, by statement line, or both.
const T = { readyToConfirmMs: 1_000, paymentFinishedMs: 1_000 };
const ACCOUNT = '40702810700000000002';
const DAY_MS = 86_400_000;
let sb: RunningSandbox;
let client: SignedClient;
let hooks: WebhookReceiver;
beforeEach(async () => {
  hooks = await new WebhookReceiver().start();
  // 10:00 Moscow time on 23 November.
  ({ sb, client } = await startTestSandbox({
    timings: T,
    webhookUrl: hooks.url,
    clock: { startAt: '2026-11-23T07:00:00Z' },
  }));
});
afterEach(async () => {
  await sb.close();
  await hooks.close();
});

const admin = async (path: string, body?: unknown) => {
  const res = await fetch(`${sb.url}/__admin/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as J };
};
const METHODS: Record<string, J> = {
  card: card(TEST_CARDS.SUCCESS),
  bank_account: {
    type: 'bank_account',
    bank_account: {
      system_type: 'ru',
      ru: {
        bik: '044525225',
        account: '40817810099910004312',
        full_name: 'Ivan Petrov',
        description: 'Payout',
      },
    },
  },
};
const payout = async (method: J, amount: number): Promise<string> => {
  const r = await client.v1('session/init/payout', { payment_method: method, amount_details: rub(amount) });
  await sb.advance(T.readyToConfirmMs);
  await client.v1('session/confirm', { session_id: r.body.session.id });
  await sb.advance(T.paymentFinishedMs);
  return r.body.session.id as string;
};
const credits = async (day: string) =>
  (
    (await client.v1('report/account_statement', { account_number: ACCOUNT, date_from: day, date_to: day }))
      .body.method.account_statement.transactions as { session_id?: string; type: string; amount: number }[]
  )
    .filter((t) => t.type === 'credit')
    .map((t) => `${t.session_id} ${t.amount}`);
const refundedHooks = (session: string) =>
  hooks.received.filter((w) => w.body.type === 'payment_refunded' && w.body.session?.id === session);

test.each([
  ['card', 'both'],
  ['bank_account', 'both'],
  ['card', 'webhook'],
  ['bank_account', 'statement'],
])('a %s payout returned two sandbox-days later, told by %s', async (method, via) => {
  const session = await payout(METHODS[method]!, 150_000);
  const planned = await admin(`sessions/${session}/return`, { after_days: 2, via });
  expect(planned).toMatchObject({
    status: 200,
    body: { at: expect.stringMatching(/^2026-11-25T07:00:0/), via },
  });
  await sb.advance(DAY_MS);
  expect(refundedHooks(session)).toHaveLength(0);
  expect(await credits('2026-11-24')).toEqual([]);
  await sb.advance(DAY_MS);

  const byWebhook = via !== 'statement';
  const byStatement = via !== 'webhook';
  expect(refundedHooks(session)).toHaveLength(byWebhook ? 1 : 0);
  if (byWebhook) {
    expect(hooks.verified(sb.bankPublicKeyPem)).toBe(true);
    expect(refundedHooks(session)[0]!.body.session.payments[0].refunds).toEqual([
      expect.objectContaining({ status: 'accepted', id: expect.stringMatching(/^rf_/) }),
    ]);
  }
  expect(await credits('2026-11-25')).toEqual(byStatement ? [`${session} 150000`] : []);
  // The money came back either way: one return in the ledger, the session shows the refund.
  const ledger = (await admin(`ledger?session_id=${session}`)).body.entries as { kind: string }[];
  expect(ledger.map((e) => e.kind)).toEqual(['payout', 'return']);
  // Once only.
  expect((await admin(`sessions/${session}/return`, {})).status).toBe(409);
});

test('a return is refused for what cannot come back, and bad plans are named', async () => {
  const session = await payout(METHODS.card!, 10_000);
  expect((await admin(`sessions/${session}/return`, { after_days: -1 })).body.error.description).toBe(
    'after_days: sandbox days from now, 0 or more (fractions allowed)',
  );
  expect((await admin(`sessions/${session}/return`, { via: 'pigeon' })).body.error.description).toBe(
    'via: one of webhook, statement, both',
  );
  expect((await admin('sessions/ps_nope/return', {})).status).toBe(404);
  // Planned twice: the second fires into a payout already returned and changes nothing.
  await admin(`sessions/${session}/return`, { after_days: 1 });
  await admin(`sessions/${session}/return`, { after_days: 1.5 });
  await sb.advance(2 * DAY_MS);
  expect(refundedHooks(session)).toHaveLength(1);
  expect(((await admin(`ledger?session_id=${session}`)).body.entries as J[]).length).toBe(2);
});
