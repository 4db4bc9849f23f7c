/**
 * Every field of the domain payout (src/domain/payout.ts) survives each conversion between the
 * workflow boundary and the bank request: the payout workflow's input check, then payoutCall
 * (activities/payout-request.ts). A field added to the schema makes this test fail until it has a
 * value below and reaches the bank request, so a new field cannot be dropped silently.
 * test/temporal/field-end-to-end.test.ts follows one field the whole way on a real server.
 */
import { payoutCall } from '../../activities/payout-request';
import {
  PAYOUT_REQUEST_KEYS,
  RECIPIENT_KEYS,
  type PayoutMethod,
  type PayoutRequest,
  type Recipient,
} from '../../src/domain';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import { parsePayoutInput } from '../../workflows/payout/contract';

const payer = { payerType: 'legal', payerTaxNumber: '7707083893', payerName: 'ООО Пэйран' } as const;

/** A distinctive value for every recipient field: the test looks for each in the bank request. */
const recipient: Required<Recipient> = {
  lastName: 'Фамилияполя',
  firstName: 'Имяполя',
  middleName: 'Отчествополя',
  taxReference: TEST_INNS.SELF_EMPLOYED_LINKED,
  email: 'field.test@example.com',
  citizenship: 'BLR',
};

/** Distinctive values for every payout field; the method is one per case below. */
const fields = (method: PayoutMethod): Required<PayoutRequest> => ({
  reference: 'every-field-1',
  recipient,
  method,
  amount: 123_457,
  currency: 'rub',
  serviceName: 'Услугаполя',
  description: 'Описаниеполя',
  metadata: { order: 'metadata-value-17' },
  selfEmployed: true,
  payOn: '2026-12-05',
});

const METHODS: PayoutMethod[] = [
  { type: 'card', cardNumber: TEST_CARDS.SUCCESS },
  { type: 'bank_account', bik: '044525225', account: '40817810099910004312' },
  { type: 'fps', phone: '79001234567', bankId: '100000000111' },
];

/** Every leaf value of a payout, as it should appear somewhere in the bank request. */
function leaves(value: unknown): string[] {
  if (value && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [String(value)];
}

describe('every field of the domain payout reaches the bank request', () => {
  it('the test has a value for every field the schema defines', () => {
    expect(Object.keys(fields(METHODS[0]!)).sort()).toEqual([...PAYOUT_REQUEST_KEYS].sort());
    expect(Object.keys(recipient).sort()).toEqual([...RECIPIENT_KEYS].sort());
  });

  it.each(METHODS.map((m) => [m.type, m] as const))(
    '%s: through the input check and payoutCall',
    (_type, method) => {
      const request = fields(method);
      const parsed = parsePayoutInput({ request });
      if (!parsed.ok) throw new Error(parsed.message);
      expect(parsed.value.request).toStrictEqual(request);

      const call = payoutCall(parsed.value.request, { workflowId: 'payout-every-field-1' }, payer);
      // selfEmployed decides the call and method.type the bank's block; payOn when the payout starts
      // (the bank never hears it: the request is sent on that day); every other value is carried.
      expect(call.method).toBe('initPayoutFiscalization');
      const sent = JSON.stringify(call.params);
      const {
        selfEmployed: _call,
        payOn: _when,
        method: { type: _block, ...details },
        ...rest
      } = request;
      const carried = { ...rest, details };
      expect(sent).not.toContain('2026-12-05');
      const missing = leaves(carried).filter((v) => !sent.includes(JSON.stringify(v).slice(1, -1)));
      // The card payout sends no description (the spec's card block has none; decision D21).
      expect(missing).toEqual(method.type === 'card' ? ['Описаниеполя'] : []);
    },
  );
});
