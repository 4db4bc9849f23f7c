import { verifyBody } from '../../src/bank/signing';
import { TEST_AMOUNTS, TEST_CARDS, TEST_INNS, type RunningSandbox } from '../../src/sandbox';
import { card, type J, rub, type SignedClient, startTestSandbox, WebhookReceiver } from './signed-client';

const T = {
  readyToConfirmMs: 60_000,
  paymentFinishedMs: 60_000,
  returnMs: 60_000,
  confirmationPayoutMs: 60_000,
};
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

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

const payout = (number: string, amount = 150_000, extra: Record<string, unknown> = {}) => ({
  payment_method: card(number),
  amount_details: rub(amount),
  participant_details: { recipient: { reference: 'emp-1', first_name: 'Ivan', last_name: 'Petrov' } },
  ...extra,
});

async function toReady(): Promise<void> {
  await sb.advance(T.readyToConfirmMs);
}
async function confirmAndFinish(id: string): Promise<Record<string, J>> {
  const c = await client.v1('session/confirm', { session_id: id });
  expect(c.status).toBe(200);
  await sb.advance(T.paymentFinishedMs);
  return (await client.v1('session/status', { session_id: id })).body.session;
}

test('payout happy path: in_progress → pending (ready_to_confirm) → confirm → succeeded, one ledger entry', async () => {
  const r = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS), {
    idempotencyKey: 'row-0001',
  });
  expect(r.status).toBe(200);
  expect(r.body.status).toBe('ok');
  const s = r.body.session;
  expect(s.id).toMatch(/^ps_\d+$/);
  expect(s.status).toBe('in_progress');
  expect(s.created_at).toMatch(TS);
  expect(s.payments[0].id).toMatch(/^po_\d+$/);
  expect(s.payments[0].status).toBe('in_progress');
  expect(s.payments[0].payment_method.card.bank_card).toEqual(
    expect.objectContaining({ last4: '0012', brand: 'mir' }),
  );
  expect(JSON.stringify(s)).not.toContain(TEST_CARDS.SUCCESS);

  await toReady();
  const ready = hooks.ofType('ready_to_confirm');
  expect(ready).toHaveLength(1);
  expect(verifyBody(ready[0]!.raw, ready[0]!.signature, sb.bankPublicKeyPem)).toBe(true);
  expect(ready[0]!.body.session.next_action).toBe('confirm');
  expect(ready[0]!.body.session.payments[0].status).toBe('pending');

  const done = await confirmAndFinish(s.id);
  expect(done.status).toBe('accepted');
  expect(done.actions.confirm).toMatch(TS);
  expect(done.payments[0].status).toBe('succeeded');
  expect(done.payments[0].transaction_info).toEqual({
    rrn: expect.stringMatching(/^\d+$/),
    auth_code: expect.stringMatching(/^\d{6}$/),
  });
  const fin = hooks.ofType('payment_finished');
  expect(fin).toHaveLength(1);
  expect(fin[0]!.body.session.payments[0].status).toBe('succeeded');
  expect(hooks.verified(sb.bankPublicKeyPem)).toBe(true);

  // a duplicate confirm and a replayed init change nothing
  expect((await client.v1('session/confirm', { session_id: s.id })).status).toBe(200);
  const replay = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS), {
    idempotencyKey: 'row-0001',
  });
  expect(replay.text).toBe(r.text);
  await sb.advance(T.paymentFinishedMs);
  const ledger = sb.ledger();
  expect(ledger).toHaveLength(1);
  expect(ledger[0]).toMatchObject({
    session_id: s.id,
    kind: 'payout',
    amount: 150_000,
    currency: 'rub',
    idempotency_key: 'row-0001',
    recipient_reference: 'emp-1',
  });
  expect(ledger[0]!.method).toBe('card 220000******0012');
  // no optional events by default
  expect(hooks.ofType('confirmation_payout')).toHaveLength(0);
});

test('v2 names: payout_details / payout_list / payment_list', async () => {
  const r = await client.v2('session/create', {
    payout_details: card(TEST_CARDS.SUCCESS),
    amount_details: rub(1000),
  });
  expect(r.body.session.status).toBe('created');
  expect(r.body.session.payout_list).toEqual([]);
  expect(r.body.session.payment_list).toEqual([]);
  const v2init = await client.v2('session/init/payout/nominal', {
    payout_details: {
      type: 'bank_account',
      bank_account: {
        system_type: 'ru',
        ru: {
          bik: '044525225',
          account: '40817810099910004312',
          full_name: 'Ivan Petrov',
          description: 'Payout for May',
        },
      },
    },
    amount_details: rub(5000),
    participant_details: {
      sender: { account: '40702810700000000002' },
      recipient: { beneficiary_id: 'b-1' },
    },
  });
  expect(v2init.status).toBe(200);
  expect(v2init.body.session.payout_list[0].payout_details.bank_account.ru.account).toBe(
    '40817***********4312',
  );
  // wrong name for the version fails
  const wrong = await client.v2('session/init/payout/nominal', {
    payment_method: card(TEST_CARDS.SUCCESS),
    amount_details: rub(5000),
  });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error.description).toContain('payout_details: not_blank');
  // nominal confirm needs confirm_information
  await toReady();
  expect(hooks.ofType('ready_to_confirm')[0]!.body.confirm_information).toBeDefined();
  const id = v2init.body.session.id;
  const noInfo = await client.v2('session/confirm', { session_id: id });
  expect(noInfo.body.error.description).toContain('confirm_information');
  expect((await client.v2('session/confirm', { session_id: id, confirm_information: {} })).status).toBe(200);
});

test('create + start merges parameters; start only in a created session', async () => {
  const c = await client.v1('session/create', { payment_method: card(TEST_CARDS.SUCCESS) });
  const id = c.body.session.id;
  const missing = await client.v1('session/start/payout', { session_id: id });
  expect(missing.body.error).toEqual({
    code: 'invalid_request',
    description: 'amount_details: not_blank (required)',
  });
  const st = await client.v1('session/start/payout', { session_id: id, amount_details: rub(700) });
  expect(st.body.session.payments[0].amount_details).toEqual(rub(700));
  const again = await client.v1('session/start/payout', { session_id: id, amount_details: rub(700) });
  expect(again.status).toBe(409);
  expect((await client.v1('session/status', { session_id: 'ps_999999' })).status).toBe(404);
});

test('fiscalized payout: completeness checked, receipt {id, link} on success', async () => {
  const fiscal = (inn: string, amount: number) => ({
    professional_income_taxpayer: {
      tax_reference: inn,
      payer_type: 'legal',
      payer_tax_number: '7707083893',
      payer_name: 'LLC Payrun',
      services: [{ name: 'Design', amount_details: rub(amount), quantity: 1 }],
    },
  });
  const bad = await client.v1(
    'session/init/payout/fiscalization',
    payout(TEST_CARDS.SUCCESS, 10_000, { fiscalization_details: fiscal('770700000191', 9_999) }),
  );
  expect(bad.status).toBe(400);
  expect(bad.body.error.description).toContain(
    'fiscalization_details.professional_income_taxpayer.tax_reference: invalid check digits',
  );
  expect(bad.body.error.description).toContain('total 9999 must equal amount_details.amount 10000');
  const r = await client.v1(
    'session/init/payout/fiscalization',
    payout(TEST_CARDS.SUCCESS, 10_000, {
      fiscalization_details: fiscal(TEST_INNS.SELF_EMPLOYED_LINKED, 10_000),
    }),
  );
  expect(r.status).toBe(200);
  await toReady();
  const done = await confirmAndFinish(r.body.session.id);
  const receipt = done.payments[0].fiscalization_details.professional_income_taxpayer.receipt;
  expect(receipt.id).toMatch(/^\d+$/);
  expect(receipt.link).toContain(TEST_INNS.SELF_EMPLOYED_LINKED);
  // not a taxpayer → failed at the bank
  const r2 = await client.v1(
    'session/init/payout/fiscalization',
    payout(TEST_CARDS.SUCCESS, 10_000, {
      fiscalization_details: fiscal(TEST_INNS.NOT_SELF_EMPLOYED, 10_000),
    }),
  );
  await toReady();
  const f2 = await confirmAndFinish(r2.body.session.id);
  expect(f2.payments[0].error.code).toBe('taxpayer_not_registered');
});

test.each([
  ['card', payout(TEST_CARDS.DECLINED_BY_ISSUER)],
  ['amount', payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.DECLINED_BY_ISSUER)],
])('declined by issuer (%s): payout failed, session cancelled, nothing in the ledger', async (_, body) => {
  const r = await client.v1('session/init/payout', body);
  await toReady();
  const s = await confirmAndFinish(r.body.session.id);
  expect(s.status).toBe('cancelled');
  expect(s.error.code).toBe('session_cancelled');
  expect(s.payments[0].status).toBe('failed');
  expect(s.payments[0].error.code).toBe('declined_by_issuer_bank');
  expect(hooks.ofType('payment_finished')[0]!.body.session.payments[0].status).toBe('failed');
  expect(sb.ledger()).toHaveLength(0);
});

test('declined by tax number of a fiscalized payout; stays pending by card and amount', async () => {
  const fiscal = {
    professional_income_taxpayer: { tax_reference: TEST_INNS.PAYOUT_DECLINED, payer_type: 'legal' },
  };
  const d = await client.v1(
    'session/init/payout',
    payout(TEST_CARDS.SUCCESS, 1000, { fiscalization_details: fiscal }),
  );
  const p1 = await client.v1('session/init/payout', payout(TEST_CARDS.STAYS_PENDING));
  const p2 = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.STAYS_PENDING));
  await toReady();
  expect((await confirmAndFinish(d.body.session.id)).payments[0].error.code).toBe('declined_by_issuer_bank');
  for (const p of [p1, p2]) {
    await client.v1('session/confirm', { session_id: p.body.session.id });
  }
  await sb.advance(24 * 3600_000);
  for (const p of [p1, p2]) {
    const s = (await client.v1('session/status', { session_id: p.body.session.id })).body.session;
    expect(s.status).toBe('in_progress');
    expect(s.payments[0].status).toBe('pending');
  }
});

test.each([
  ['card', payout(TEST_CARDS.INTERNAL_ERROR)],
  ['amount', payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.INTERNAL_ERROR)],
])('internal_error (%s) at request time: HTTP 500, nothing created, every time', async (_, body) => {
  for (let i = 0; i < 2; i++) {
    const r = await client.v1('session/init/payout', body, { idempotencyKey: 'ie-key-1' });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      status: 'error',
      error: { code: 'internal_error', description: expect.any(String) },
    });
  }
  expect(Object.keys(sb.sandbox.state.sessions)).toHaveLength(0);
});

test('internal_error once: the retry with the same key succeeds', async () => {
  const first = await client.v1('session/init/payout', payout(TEST_CARDS.INTERNAL_ERROR_ONCE), {
    idempotencyKey: 'once-key',
  });
  expect(first.status).toBe(500);
  const second = await client.v1('session/init/payout', payout(TEST_CARDS.INTERNAL_ERROR_ONCE), {
    idempotencyKey: 'once-key',
  });
  expect(second.status).toBe(200);
  const amt = await client.v1(
    'session/init/payout',
    payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.INTERNAL_ERROR_ONCE),
  );
  expect(amt.status).toBe(500);
  expect(
    (await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.INTERNAL_ERROR_ONCE)))
      .status,
  ).toBe(200);
});

test('returned payout: payment_refunded after success, money back on the deposit', async () => {
  const before = sb.sandbox.state.accounts['40702810700000000002']!.balance;
  const r = await client.v1('session/init/payout', payout(TEST_CARDS.RETURNED, 5000));
  const r2 = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS, TEST_AMOUNTS.RETURNED));
  await toReady();
  await confirmAndFinish(r.body.session.id);
  await confirmAndFinish(r2.body.session.id);
  await sb.advance(T.returnMs);
  const refunded = hooks.ofType('payment_refunded');
  expect(refunded.map((w) => w.body.session.id).sort()).toEqual(
    [r.body.session.id, r2.body.session.id].sort(),
  );
  const back = refunded.find((w) => w.body.session.id === r.body.session.id)!;
  expect(back.body.session.payments[0].refunds[0]).toMatchObject({
    id: expect.stringMatching(/^rf_\d+$/),
    status: 'accepted',
    amount_details: rub(5000),
  });
  expect(
    sb
      .ledger()
      .map((e) => e.kind)
      .sort(),
  ).toEqual(['payout', 'payout', 'return', 'return']);
  expect(sb.sandbox.state.accounts['40702810700000000002']!.balance).toBe(before);
});

test('cancel after ready_to_confirm → cancelled + payment_finished failed; cancel before → invalid_state', async () => {
  const r = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  const early = await client.v1('session/cancel', { session_id: r.body.session.id });
  expect(early.status).toBe(409);
  expect(early.body.error.code).toBe('invalid_state');
  await toReady();
  const c = await client.v1('session/cancel', { session_id: r.body.session.id });
  expect(c.body.session.status).toBe('cancelled');
  expect(c.body.session.payments[0].status).toBe('failed');
  await sb.advance(1);
  expect(hooks.ofType('payment_finished')[0]!.body.session.status).toBe('cancelled');
  expect((await client.v1('session/confirm', { session_id: r.body.session.id })).status).toBe(409);
  expect(sb.ledger()).toHaveLength(0);
});

test('confirm within 4 hours works; after 4 hours confirm_timeout', async () => {
  const a = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  const b = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS));
  await sb.advance(4 * 3600_000 - 1_000);
  expect((await client.v1('session/confirm', { session_id: a.body.session.id })).status).toBe(200);
  await sb.advance(2_000);
  const late = await client.v1('session/confirm', { session_id: b.body.session.id });
  expect(late.status).toBe(409);
  expect(late.body.error.code).toBe('confirm_timeout');
  const s = (await client.v1('session/status', { session_id: b.body.session.id })).body.session;
  expect(s.status).toBe('cancelled');
});

test('insufficient deposit: payout fails with insufficient_funds', async () => {
  await client.admin('deposit', { set: 1000 });
  const r = await client.v1('session/init/payout', payout(TEST_CARDS.SUCCESS, 1001));
  await toReady();
  const s = await confirmAndFinish(r.body.session.id);
  expect(s.payments[0].error.code).toBe('insufficient_funds');
  expect(sb.ledger()).toHaveLength(0);
});

test('request validation names field and rule', async () => {
  const cases: [unknown, string][] = [
    [payout(TEST_CARDS.SUCCESS, 0), 'amount_details.amount: must be greater than 0'],
    [payout(TEST_CARDS.SUCCESS, 10.5), 'amount_details.amount: must be an integer (minor units)'],
    [payout('2200000000000013'), 'payment_method.card.bank_card.number: invalid card number (checksum)'],
    [
      { ...payout(TEST_CARDS.SUCCESS), amount_details: { amount: 100, currency: 'usd' } },
      'amount_details.currency: must be rub',
    ],
    [{ amount_details: rub(100) }, 'payment_method: not_blank (required)'],
    [
      {
        ...payout(TEST_CARDS.SUCCESS),
        payment_method: {
          type: 'bank_account',
          bank_account: {
            system_type: 'faster_payment_system',
            faster_payment_system: { phone: '79001234567', bank_id: '1', description: 'x'.repeat(141) },
          },
        },
      },
      'payment_method.bank_account.faster_payment_system.bank_id: unknown FPS bank',
    ],
    [
      {
        ...payout(TEST_CARDS.SUCCESS),
        payment_method: {
          type: 'bank_account',
          bank_account: {
            system_type: 'faster_payment_system',
            faster_payment_system: {
              phone: '79001234567',
              bank_id: '100000000111',
              description: 'x'.repeat(141),
            },
          },
        },
      },
      'payment_method.bank_account.faster_payment_system.description: invalid_length (at most 140 characters)',
    ],
    [{ ...payout(TEST_CARDS.SUCCESS), customer: { reference: '   ' } }, 'customer.reference: not_blank'],
  ];
  for (const [body, msg] of cases) {
    const r = await client.v1('session/init/payout', body);
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('error');
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.description).toContain(msg);
  }
  expect(Object.keys(sb.sandbox.state.sessions)).toHaveLength(0);
});

describe('a payout missing a field the spec requires is refused, for every method and start request', () => {
  const RU = {
    bik: '044525225',
    account: '40817810099910004312',
    full_name: 'Иванов Иван',
    description: 'Май',
  };
  const FPS = { phone: '79001234567', bank_id: '100000000111', description: 'Май' };
  const ru = (fields: Record<string, unknown>) => ({
    type: 'bank_account',
    bank_account: { system_type: 'ru', ru: fields },
  });
  const fps = (fields: Record<string, unknown>) => ({
    type: 'bank_account',
    bank_account: { system_type: 'faster_payment_system', faster_payment_system: fields },
  });
  const without = (o: Record<string, unknown>, key: string) => {
    const { [key]: _dropped, ...rest } = o;
    return rest;
  };
  const fiscal = {
    professional_income_taxpayer: {
      tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED,
      payer_type: 'legal',
      payer_tax_number: '7707083893',
      payer_name: 'LLC Payrun',
      services: [{ name: 'Design', amount_details: rub(10_000), quantity: 1 }],
    },
  };
  /** [case, method block, the path after the block's name, the rule]. */
  const BLOCKS: [string, unknown, string, string][] = [
    [
      'card without number',
      { type: 'card', card: { type: 'bank_card', bank_card: {} } },
      'card.bank_card.number',
      'not_blank',
    ],
    ...Object.keys(RU).map((k): [string, unknown, string, string] => [
      `ru without ${k}`,
      ru(without(RU, k)),
      `bank_account.ru.${k}`,
      'not_blank',
    ]),
    ['ru blank full_name', ru({ ...RU, full_name: ' ' }), 'bank_account.ru.full_name', 'not_blank'],
    ['ru blank description', ru({ ...RU, description: '' }), 'bank_account.ru.description', 'not_blank'],
    ...Object.keys(FPS).map((k): [string, unknown, string, string] => [
      `fps without ${k}`,
      fps(without(FPS, k)),
      `bank_account.faster_payment_system.${k}`,
      'not_blank',
    ]),
    [
      'fps description of 141 characters',
      fps({ ...FPS, description: 'я'.repeat(141) }),
      'bank_account.faster_payment_system.description',
      'invalid_length (at most 140 characters)',
    ],
  ];
  type Start = (block: unknown) => Promise<{ status: number; body: J; sessionsBefore: number }>;
  const sessions = () => Object.values(sb.sandbox.state.sessions);
  const payoutsStarted = () => sessions().reduce((n, s) => n + s.operations.length, 0);
  const init =
    (method: string, extra: Record<string, unknown> = {}): Start =>
    async (block) => {
      const sessionsBefore = sessions().length;
      const r = await client.v1(method, { payment_method: block, amount_details: rub(10_000), ...extra });
      return { ...r, sessionsBefore };
    };
  /** The block comes with create (the spec lets a start request carry only the rest). */
  const startAfterCreate =
    (method: string, extra: Record<string, unknown> = {}): Start =>
    async (block) => {
      const created = await client.v1('session/create', { amount_details: rub(10_000), ...extra });
      const sessionsBefore = sessions().length;
      const r = await client.v1(method, { session_id: created.body.session.id, payment_method: block });
      return { ...r, sessionsBefore };
    };
  const STARTS: [string, Start, string][] = [
    ['v1 init/payout', init('session/init/payout'), 'payment_method'],
    [
      'v1 init/payout/fiscalization',
      init('session/init/payout/fiscalization', { fiscalization_details: fiscal }),
      'payment_method',
    ],
    ['v1 start/payout', startAfterCreate('session/start/payout'), 'payment_method'],
    [
      'v1 start/payout/fiscalization',
      startAfterCreate('session/start/payout/fiscalization', { fiscalization_details: fiscal }),
      'payment_method',
    ],
    [
      'v2 init/payout/nominal',
      async (block) => {
        const sessionsBefore = sessions().length;
        const r = await client.v2('session/init/payout/nominal', {
          payout_details: block,
          amount_details: rub(10_000),
          participant_details: {
            sender: { account: '40702810700000000002' },
            recipient: { beneficiary_id: 'b-1' },
          },
        });
        return { ...r, sessionsBefore };
      },
      'payout_details',
    ],
  ];
  const CASES = STARTS.flatMap(([start, call, name]) =>
    BLOCKS.map(
      ([what, block, path, rule]) => [`${start}: ${what}`, call, block, `${name}.${path}: ${rule}`] as const,
    ),
  );

  test.each(CASES)('%s', async (_case, start, block, problem) => {
    const r = await start(block);
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('error');
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.description).toContain(problem);
    // Each problem once, even where the general block check finds it too.
    expect(r.body.error.description.split(problem)).toHaveLength(2);
    expect(sessions()).toHaveLength(r.sessionsBefore);
    expect(payoutsStarted()).toBe(0);
  });

  test.each(STARTS)('%s: the complete blocks are accepted', async (_start, start) => {
    for (const block of [
      card(TEST_CARDS.SUCCESS),
      ru(RU),
      // 140 characters, some of them outside the BMP (two UTF-16 units each)
      fps({ ...FPS, description: '😀'.repeat(140) }),
    ]) {
      const r = await start(block);
      expect([r.status, r.body.error]).toEqual([200, undefined]);
    }
    expect(payoutsStarted()).toBe(3);
  });
});
