import {
  payoutCall,
  payoutDescription,
  recipientFullName,
  type PayoutCall,
} from '../../activities/payout-request';
import {
  BankClient,
  InitPayoutFiscalizationParamsSchema,
  InitPayoutParamsSchema,
  type PaymentSession,
} from '../../src/bank';
import type { PayerConfig } from '../../src/config';
import { endsAtResult } from '../../src/routing/targets';
import type { PayoutMethod, PayoutRequest } from '../../src/domain';
import { TEST_CARDS, TEST_INNS, type RunningSandbox } from '../../src/sandbox';
import { partnerKeys, PROJECT, silentLogger, startTestSandbox } from '../sandbox/signed-client';

/** The bank request built from a batch row carries every field the spec requires of its method. */

const payer: PayerConfig = { payerType: 'legal', payerTaxNumber: '7707083893', payerName: 'ООО Пэйран' };
const routing = { workflowId: 'payout-r-1', batchId: 'batch-0123456789abcdef' };
const METHODS: Record<PayoutMethod['type'], PayoutMethod> = {
  card: { type: 'card', cardNumber: TEST_CARDS.SUCCESS },
  bank_account: { type: 'bank_account', bik: '044525225', account: '40817810099910004312' },
  fps: { type: 'fps', phone: '79001234567', bankId: '100000000111' },
};

function row(method: PayoutMethod, selfEmployed: boolean, extra: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    reference: 'r-1',
    recipient: {
      lastName: 'Иванова',
      firstName: 'Мария',
      middleName: 'Петровна',
      taxReference: TEST_INNS.SELF_EMPLOYED_LINKED,
    },
    method,
    amount: 150_000,
    currency: 'rub',
    serviceName: 'Дизайн логотипа',
    selfEmployed,
    ...extra,
  };
}

const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';

/** The spec's required fields of each payout method ("Payment-method blocks", "Withdrawal"). */
function requiredFields(call: PayoutCall): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const m = call.params.payment_method as any;
  if (m.type === 'card') return { number: m.card.bank_card.number };
  if (m.bank_account.system_type === 'ru') {
    const { bik, account, full_name, description } = m.bank_account.ru;
    return { bik, account, full_name, description };
  }
  const { phone, bank_id, description } = m.bank_account.faster_payment_system;
  return { phone, bank_id, description };
}

const CASES = (['card', 'bank_account', 'fps'] as const).flatMap((type) =>
  [true, false].map((selfEmployed) => [type, selfEmployed] as const),
);

describe.each(CASES)('%s, self-employed %s', (type, selfEmployed) => {
  const call = payoutCall(row(METHODS[type], selfEmployed), routing, payer);

  test('every required field of the method is present and not blank', () => {
    const fields = requiredFields(call);
    const expected = {
      card: ['number'],
      bank_account: ['bik', 'account', 'full_name', 'description'],
      fps: ['phone', 'bank_id', 'description'],
    }[type];
    expect(Object.keys(fields).sort()).toEqual([...expected].sort());
    for (const [name, value] of Object.entries(fields)) expect([name, blank(value)]).toEqual([name, false]);
    expect(call.params.amount_details).toEqual({ amount: 150_000, currency: 'rub' });
  });

  test(`fiscalization block ${selfEmployed ? 'present (init/payout/fiscalization)' : 'absent (init/payout)'}`, () => {
    expect(call.method).toBe(selfEmployed ? 'initPayoutFiscalization' : 'initPayout');
    if (selfEmployed) {
      expect(call.params.fiscalization_details).toEqual({
        professional_income_taxpayer: {
          tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED,
          payer_type: 'legal',
          payer_tax_number: '7707083893',
          payer_name: 'ООО Пэйран',
          services: [
            { name: 'Дизайн логотипа', amount_details: { amount: 150_000, currency: 'rub' }, quantity: 1 },
          ],
        },
      });
    } else {
      expect(call.params).not.toHaveProperty('fiscalization_details');
    }
  });

  test('the bank client’s own request check accepts it', () => {
    const schema = selfEmployed ? InitPayoutFiscalizationParamsSchema : InitPayoutParamsSchema;
    expect(schema.safeParse(call.params).error?.issues).toBeUndefined();
  });
});

describe('full_name and description', () => {
  test('full_name is family name, given name, patronymic; without a patronymic, two words', () => {
    const r = row(METHODS.bank_account, true);
    expect(recipientFullName(r.recipient)).toBe('Иванова Мария Петровна');
    const { middleName: _none, ...noPatronymic } = r.recipient;
    expect(recipientFullName(noPatronymic)).toBe('Иванова Мария');
    expect(recipientFullName({ ...r.recipient, firstName: ' Анна  Мария ', middleName: ' ' })).toBe(
      'Иванова Анна Мария',
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ru = (payoutCall(r, routing, payer).params.payment_method as any).bank_account.ru;
    expect(ru.full_name).toBe('Иванова Мария Петровна');
  });

  test('the row’s description is sent for both bank-account and FPS payouts', () => {
    for (const type of ['bank_account', 'fps'] as const) {
      const call = payoutCall(
        row(METHODS[type], false, { description: 'Оплата по договору 17' }),
        routing,
        payer,
      );
      expect(requiredFields(call).description).toBe('Оплата по договору 17');
    }
  });

  test('without one (or a blank one), a default names the reference and the service', () => {
    expect(payoutDescription(row(METHODS.fps, true))).toBe('Выплата r-1: Дизайн логотипа');
    expect(payoutDescription(row(METHODS.fps, true, { description: '   ' }))).toBe(
      'Выплата r-1: Дизайн логотипа',
    );
  });

  test('the default never exceeds the FPS limit of 140 characters, and keeps the reference', () => {
    const reference = 'R'.repeat(64);
    const long = row(METHODS.fps, true, { reference, serviceName: 'Услуги 😀 '.repeat(40) });
    const description = requiredFields(payoutCall(long, routing, payer)).description as string;
    expect([...description]).toHaveLength(140);
    expect(description.startsWith(`Выплата ${reference}: Услуги 😀`)).toBe(true);
    expect(description.endsWith('…')).toBe(true);
    expect(
      InitPayoutFiscalizationParamsSchema.safeParse(payoutCall(long, routing, payer).params).success,
    ).toBe(true);
  });
});

describe('whether the payout waits for the credit confirmation', () => {
  it('says it ends at the result only when asked, and the ingress reads it back from the echo', () => {
    const request = row(METHODS.card, false);
    const echo = (params: { metadata?: unknown }) => ({
      id: 'ps_1',
      payments: [{ id: 'po_1', metadata: JSON.stringify(params.metadata) }],
    });
    const ending = payoutCall(request, { ...routing, endsAtResult: true }, payer).params;
    expect(endsAtResult(echo(ending) as never)).toBe(true);
    const waiting = payoutCall(request, routing, payer).params;
    expect(JSON.stringify(waiting.metadata)).not.toContain('ends_at_result');
    expect(endsAtResult(echo(waiting) as never)).toBe(false);
    expect(endsAtResult({ id: 'ps_2', payments: [{ id: 'po_2' }] } as never)).toBe(false);
  });
});

describe('against the bank sandbox (real HTTP, real checks)', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    ({ sb } = await startTestSandbox({ timings: { readyToConfirmMs: 60_000 } }));
  });
  afterAll(() => sb.close());

  test.each([1, 2] as const)('API v%s: every method and both kinds are accepted', async (apiVersion) => {
    const bank = new BankClient({
      baseUrl: sb.url,
      project: PROJECT,
      privateKeyPem: partnerKeys().privateKey,
      apiVersion,
      logger: silentLogger,
    });
    try {
      for (const [type, selfEmployed] of CASES) {
        const reference = `v${apiVersion}-${type}-${selfEmployed ? 'se' : 'plain'}`;
        const call = payoutCall(row(METHODS[type], selfEmployed, { reference }), routing, payer);
        const res =
          call.method === 'initPayoutFiscalization'
            ? await bank.sessions.initPayoutFiscalization(call.params)
            : await bank.sessions.initPayout(call.params);
        const session: PaymentSession = res.session;
        expect([reference, session.payments?.[0]?.status]).toEqual([reference, 'in_progress']);
      }
    } finally {
      await bank.close();
    }
  });
});
