/**
 * Each workflow's contract (workflows/<name>/contract.ts): what a workflow accepts from anyone who can reach Temporal. Every refusal
 * must name the field and the rule, and never show a card, account, phone or tax number it was given.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FPS_DESCRIPTION_MAX, loadBatch } from '../../src/csv';
import { luhnCard } from '../harness/csv-rows';
import type { PayoutRequest } from '../../src/domain';
import { invalidInput, type Result } from '../../workflows/shared/parse';
import { parseBankEvent } from '../../workflows/shared/bank-event-contract';
import { parseApproval, parseCancellation, parsePauseResume } from '../../workflows/shared/operator-contract';
import { parseBatchWorkflowInput } from '../../workflows/batch/contract';
import { parsePayoutInput } from '../../workflows/payout/contract';
import { parseRefundInput } from '../../workflows/refund/contract';
import { parseWebhookInboxInput } from '../../workflows/webhook-inbox/contract';

// Recognisable values: a message containing any of them has leaked personal data.
const CARD = '2200000000000012';
const INN = '770700000190';
const BIK = '044525225';
const ACCOUNT = '40817810099910004312';
const PHONE = '79123456789';
const LAST = 'Иванова';
const FIRST = 'Анна';
const EMAIL = 'anna.ivanova@example.com';
const SECRETS = [CARD, INN, BIK, ACCOUNT, PHONE, LAST, FIRST, EMAIL];

const recipient = { lastName: LAST, firstName: FIRST, taxReference: INN };
const card = { type: 'card', cardNumber: CARD } as const;
const bankAccount = { type: 'bank_account', bik: BIK, account: ACCOUNT } as const;
const fps = { type: 'fps', phone: PHONE, bankId: '100000000111' } as const;

function request(over: Record<string, unknown> = {}): PayoutRequest {
  return {
    reference: 'demo-001',
    recipient,
    method: card,
    amount: 150_000,
    currency: 'rub',
    serviceName: 'Вёрстка макета',
    selfEmployed: true,
    ...over,
  } as PayoutRequest;
}

function accepted<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected the input to be accepted, got: ${r.message}`);
  return r.value;
}

/** The refusal's message; it must contain every given fragment and none of the personal values. */
function refused<T>(r: Result<T>, ...fragments: string[]): string {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  for (const f of fragments) expect(r.message).toContain(f);
  for (const secret of SECRETS) expect(r.message).not.toContain(secret);
  return r.message;
}

const notObjects: [string, unknown][] = [
  ['null', null],
  ['undefined', undefined],
  ['an array', []],
  ['a number', 42],
  ['a string', 'approve'],
  ['true', true],
];

describe('parsePayoutInput', () => {
  it.each([
    ['card', card, true],
    ['card', card, false],
    ['bank_account', bankAccount, true],
    ['bank_account', bankAccount, false],
    ['fps', fps, true],
    ['fps', fps, false],
  ] as const)('a %s payout (selfEmployed %s) comes back equal', (_name, method, selfEmployed) => {
    const input = { request: request({ method, selfEmployed }) };
    expect(accepted(parsePayoutInput(input))).toStrictEqual(input);
  });

  it('keeps every optional field the CSV can produce, batchId and options', () => {
    const input = {
      request: request({
        recipient: { ...recipient, middleName: 'Сергеевна', email: EMAIL },
        description: 'Акт №12',
        metadata: { project: 'alpha', nested: { n: 1 } },
      }),
      batchId: 'batch-0123456789abcdef-retry-2',
      options: {
        requireApproval: true,
        awaitCreditConfirmation: true,
        creditConfirmationBusinessDays: 7,
        creditConfirmationWindowMs: 6_000,
        pollAfterMs: 1_000,
        confirmWindowMs: 8_000,
        confirmSafetyMarginMs: 3_000,
        taxpayerCheckMaxAgeMs: 86_400_000,
        reconcileOnly: false,
      },
    };
    expect(accepted(parsePayoutInput(input))).toStrictEqual(input);
    const textMetadata = { request: request({ metadata: 'order 17' }) };
    expect(accepted(parsePayoutInput(textMetadata))).toStrictEqual(textMetadata);
  });

  it('refuses unknown keys at every level, naming each, so none is dropped on its way to the bank', () => {
    const input = {
      request: {
        ...request(),
        recipient: { ...recipient, passport: '4510 123456' },
        method: { ...card, cvv: '123' },
        payer: { inn: '7707083893' },
      },
      options: { pollAfterMs: 1_000, skipTaxpayerCheck: true },
      workflowIdOverride: 'x',
    };
    const message = refused(
      parsePayoutInput(input),
      'workflowIdOverride: expected no such field',
      'request.payer: expected no such field',
      'request.recipient.passport: expected no such field',
      'request.method.cvv: expected no such field',
      'options.skipTaxpayerCheck: expected no such field',
    );
    expect(message).not.toContain('4510');
    expect(message).not.toContain('123456');
  });
  it('refuses a single unknown key in an otherwise good request', () => {
    refused(
      parsePayoutInput({ request: { ...request(), citizenship: 'RUS' } }),
      'request.citizenship: expected no such field (unknown fields are refused, not dropped)',
    );
  });

  it('refuses metadata over 4 096 characters of JSON, as the CSV check does', () => {
    accepted(parsePayoutInput({ request: request({ metadata: 'x'.repeat(4_096) }) }));
    accepted(parsePayoutInput({ request: request({ metadata: { a: 'x'.repeat(4_088) } }) }));
    expect(refused(parsePayoutInput({ request: request({ metadata: { a: 'x'.repeat(4_089) } }) }))).toBe(
      'request.metadata: expected at most 4096 characters of metadata, got an object',
    );
    refused(parsePayoutInput({ request: request({ metadata: 'x'.repeat(2_000_000) }) }), 'request.metadata');
  });

  it('accepts every request the CSV loader accepts in batches/examples, unchanged', () => {
    const dir = join(__dirname, '../../batches/examples');
    const requests = readdirSync(dir)
      .filter((f) => f.endsWith('.csv'))
      .flatMap((f) => loadBatch(readFileSync(join(dir, f)), { policy: 'partial' }).accepted);
    expect(new Set(requests.map((r) => r.method.type))).toEqual(new Set(['card', 'bank_account', 'fps']));
    for (const r of requests)
      expect(accepted(parsePayoutInput({ request: r }))).toStrictEqual({ request: r });
  });

  it.each(notObjects)('refuses %s as the input', (_name, raw) => {
    refused(parsePayoutInput(raw), 'input: expected an object');
  });

  it('refuses {} and a missing request, naming request', () => {
    expect(refused(parsePayoutInput({}))).toBe('request: expected an object, but it is missing');
    refused(parsePayoutInput({ request: 'pay Anna' }), 'request: expected an object');
  });

  describe('amount', () => {
    it('a string is refused with the field, the rule and what came', () => {
      expect(refused(parsePayoutInput({ request: request({ amount: '100' }) }))).toBe(
        'request.amount: expected a positive whole number of kopecks, got "100"',
      );
    });
    it.each([
      ['a float', 1500.5],
      ['zero', 0],
      ['a negative', -100],
      ['beyond safe integers', 2 ** 53],
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['null', null],
      ['a numeric string of kopecks', '150000'],
    ])('%s is refused', (_name, amount) => {
      refused(
        parsePayoutInput({ request: request({ amount }) }),
        'request.amount: expected a positive whole number of kopecks, got',
      );
    });
    it('a missing amount is named', () => {
      const { amount: _amount, ...rest } = request();
      expect(refused(parsePayoutInput({ request: rest }))).toBe(
        'request.amount: expected a positive whole number of kopecks, but it is missing',
      );
    });
    it('the largest safe integer and 1 kopeck are accepted', () => {
      accepted(parsePayoutInput({ request: request({ amount: Number.MAX_SAFE_INTEGER }) }));
      accepted(parsePayoutInput({ request: request({ amount: 1 }) }));
    });
  });

  describe('reference', () => {
    it.each(['a', 'A.b_c:d-9', 'x'.repeat(64)])('%s is accepted', (reference) => {
      accepted(parsePayoutInput({ request: request({ reference }) }));
    });
    it.each([
      ['empty', ''],
      ['65 characters', 'x'.repeat(65)],
      ['a space', 'act 1'],
      ['a slash', 'act/1'],
      ['cyrillic', 'акт-1'],
      ['a number', 17],
    ])('%s is refused', (_name, reference) => {
      refused(
        parsePayoutInput({ request: request({ reference }) }),
        'request.reference: expected 1–64 characters of latin letters, digits and . _ : -',
      );
    });
  });

  it('currency must be exactly "rub"', () => {
    for (const currency of ['RUB', 'usd', '', undefined, 643]) {
      refused(parsePayoutInput({ request: request({ currency }) }), 'request.currency: expected "rub"');
    }
  });

  describe('recipient', () => {
    it.each([
      ['lastName', ''],
      ['lastName', '   '],
      ['lastName', 'x'.repeat(65)],
      ['lastName', 5],
      ['lastName', undefined],
      ['firstName', ''],
      ['firstName', null],
      ['middleName', 'x'.repeat(65)],
      ['middleName', 1],
    ])('%s = %p is refused', (key, value) => {
      refused(
        parsePayoutInput({ request: request({ recipient: { ...recipient, [key]: value } }) }),
        `request.recipient.${key}: expected`,
      );
    });
    it('64-character names are accepted', () => {
      const long = { ...recipient, lastName: 'Я'.repeat(64), firstName: 'Ё'.repeat(64) };
      accepted(parsePayoutInput({ request: request({ recipient: long }) }));
    });
    it('a missing recipient is named', () => {
      refused(
        parsePayoutInput({ request: request({ recipient: undefined }) }),
        'request.recipient: expected an object, but it is missing',
      );
    });
    it.each([
      ['9 digits', '770700001'],
      ['11 digits', '77070000019'],
      ['13 digits', '7707000001901'],
      ['a letter', '77070000019X'],
      ['spaces', '7707 0000 0190'],
      ['a number', 770700000190],
    ])('taxReference of %s is refused without showing it', (_name, taxReference) => {
      refused(
        parsePayoutInput({ request: request({ recipient: { ...recipient, taxReference } }) }),
        'request.recipient.taxReference: expected 10 or 12 digits',
      );
    });
    it.each([
      ['12 digits', '770700000191'],
      ['10 digits', '7707083894'],
    ])('a taxReference of %s with a wrong check digit is refused', (_name, taxReference) => {
      refused(
        parsePayoutInput({ request: request({ recipient: { ...recipient, taxReference } }) }),
        'request.recipient.taxReference: expected 10 or 12 digits with valid check digits',
      );
    });
    it('a 10-digit taxReference is accepted', () => {
      accepted(
        parsePayoutInput({ request: request({ recipient: { ...recipient, taxReference: '7707083893' } }) }),
      );
    });
    it('an e-mail that is no address is refused without showing it', () => {
      refused(
        parsePayoutInput({ request: request({ recipient: { ...recipient, email: 'anna.ivanova@' } }) }),
        'request.recipient.email: expected an e-mail address',
      );
    });
  });

  describe('method', () => {
    it.each([
      ['missing', undefined, 'request.method: expected an object with type card, bank_account or fps'],
      ['a string', 'card', 'request.method: expected an object with type card, bank_account or fps'],
      [
        'an unknown type',
        { type: 'cash' },
        'request.method.type: expected card, bank_account or fps, got "cash"',
      ],
      ['no type', { cardNumber: CARD }, 'request.method.type: expected card, bank_account or fps'],
    ])('%s is refused', (_name, method, message) => {
      refused(parsePayoutInput({ request: request({ method }) }), message);
    });

    it.each([
      ['11 digits', CARD.slice(0, 11)],
      ['12 digits', luhnCard('2200', 12)],
      ['a wrong check digit', `${CARD.slice(0, -1)}3`],
      ['20 digits', `${CARD}0000`],
      ['spaces', '2200 0000 0000 0012'],
      ['dashes', '2200-0000-0000-0012'],
      ['a number', Number(CARD)],
    ])('a card number of %s is refused without showing it', (_name, cardNumber) => {
      const message = refused(
        parsePayoutInput({ request: request({ method: { type: 'card', cardNumber } }) }),
        'request.method.cardNumber: expected 13–19 digits with a valid Luhn check digit',
      );
      expect(message).not.toContain('2200');
    });
    it('13- and 19-digit card numbers are accepted', () => {
      for (const cardNumber of [luhnCard('4', 13), luhnCard('2200', 19)]) {
        accepted(parsePayoutInput({ request: request({ method: { type: 'card', cardNumber } }) }));
      }
    });

    it.each([
      ['bik', '44525225', '9 digits'],
      ['bik', 44525225, '9 digits'],
      ['account', ACCOUNT.slice(1), '20 digits'],
      ['account', `${ACCOUNT}1`, '20 digits'],
      ['account', undefined, '20 digits'],
    ])('bank_account %s = %p is refused', (key, value, rule) => {
      const method = { ...bankAccount, [key]: value };
      refused(parsePayoutInput({ request: request({ method }) }), `request.method.${key}: expected ${rule}`);
    });

    it.each([
      ['phone', '89123456789', '11 digits starting with 7'],
      ['phone', '+79123456789', '11 digits starting with 7'],
      ['phone', '9123456789', '11 digits starting with 7'],
      ['phone', 79123456789, '11 digits starting with 7'],
      ['bankId', '', 'a bank member id'],
      ['bankId', '  ', 'a bank member id'],
      ['bankId', undefined, 'a bank member id'],
    ])('fps %s = %p is refused', (key, value, rule) => {
      const method = { ...fps, [key]: value };
      refused(parsePayoutInput({ request: request({ method }) }), `request.method.${key}: expected ${rule}`);
    });

    it("a card type with a bank account's fields is refused: exactly one method", () => {
      refused(
        parsePayoutInput({ request: request({ method: { type: 'card', bik: BIK, account: ACCOUNT } }) }),
        'request.method.cardNumber: expected 13–19 digits with a valid Luhn check digit, as a string, but it is missing',
      );
    });
  });

  it('serviceName must be non-blank text', () => {
    for (const serviceName of ['', '  ', undefined, 5]) {
      refused(
        parsePayoutInput({ request: request({ serviceName }) }),
        'request.serviceName: expected non-blank text',
      );
    }
  });

  it('selfEmployed must be true or false', () => {
    for (const selfEmployed of ['yes', 1, null, undefined]) {
      refused(
        parsePayoutInput({ request: request({ selfEmployed }) }),
        'request.selfEmployed: expected true or false',
      );
    }
  });

  it('an FPS description beyond the bank limit is refused; a card payout may have a longer one', () => {
    const description = 'д'.repeat(FPS_DESCRIPTION_MAX + 1);
    refused(
      parsePayoutInput({ request: request({ method: fps, description }) }),
      `request.description: expected at most ${FPS_DESCRIPTION_MAX} characters on an FPS payout`,
    );
    accepted(
      parsePayoutInput({ request: request({ method: fps, description: 'д'.repeat(FPS_DESCRIPTION_MAX) }) }),
    );
    accepted(parsePayoutInput({ request: request({ description }) }));
  });

  it('metadata is text or a JSON object', () => {
    for (const metadata of [[1, 2], 5, null]) {
      refused(
        parsePayoutInput({ request: request({ metadata }) }),
        'request.metadata: expected text or a JSON object',
      );
    }
  });

  it.each(['batch-0123456789abcdef', 'batch-0123456789abcdef-retry-1', 'batch-ffffffffffffffff-retry-12'])(
    'batchId %s is accepted',
    (batchId) => {
      accepted(parsePayoutInput({ request: request(), batchId }));
    },
  );
  it.each(['batch-0123', 'batch-0123456789ABCDEF', 'batch-0123456789abcdef-retry-', 'x', '', 7])(
    'batchId %p is refused',
    (batchId) => {
      refused(parsePayoutInput({ request: request(), batchId }), 'batchId: expected batch-<16 hex digits>');
    },
  );

  describe('options', () => {
    const withOptions = (options: unknown) => parsePayoutInput({ request: request(), options });

    it.each([
      ['pollAfterMs', 0],
      ['pollAfterMs', 99],
      ['pollAfterMs', 3_600_001],
      ['confirmWindowMs', 999],
      ['confirmWindowMs', 4 * 3_600_000 + 1],
      ['confirmSafetyMarginMs', -1],
      ['creditConfirmationWindowMs', -1],
      ['creditConfirmationWindowMs', 61 * 86_400_000],
      ['creditConfirmationBusinessDays', 1.5],
      ['creditConfirmationBusinessDays', 31],
      ['taxpayerCheckMaxAgeMs', 8 * 86_400_000],
      ['taxpayerCheckMaxAgeMs', -5],
      ['pollAfterMs', NaN],
      ['pollAfterMs', Infinity],
      ['pollAfterMs', '60000'],
      ['pollAfterMs', null],
    ])('%s = %p is refused, the value shown', (key, value) => {
      const message = refused(withOptions({ [key]: value }), `options.${key}: expected`);
      expect(message).toContain(`got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
    });

    it.each(['requireApproval', 'awaitCreditConfirmation', 'reconcileOnly'])(
      '%s must be a boolean',
      (key) => {
        refused(withOptions({ [key]: 'true' }), `options.${key}: expected true or false, got "true"`);
      },
    );

    it('a safety margin as long as the confirm window is refused (no approval could come in time)', () => {
      expect(refused(withOptions({ confirmWindowMs: 8_000, confirmSafetyMarginMs: 8_000 }))).toBe(
        'options.confirmSafetyMarginMs: expected confirmSafetyMarginMs (8000) to be less than confirmWindowMs (8000), or no approval could ever arrive in time',
      );
      // The default margin is 15 minutes: a 10-minute window alone is refused too.
      refused(
        withOptions({ confirmWindowMs: 600_000 }),
        'options.confirmWindowMs: expected confirmSafetyMarginMs',
      );
    });

    it('bounds themselves are accepted', () => {
      accepted(
        withOptions({
          pollAfterMs: 100,
          confirmWindowMs: 4 * 3_600_000,
          confirmSafetyMarginMs: 0,
          creditConfirmationBusinessDays: 0,
          creditConfirmationWindowMs: 0,
          taxpayerCheckMaxAgeMs: 0,
        }),
      );
      accepted(withOptions({ pollAfterMs: 3_600_000, creditConfirmationBusinessDays: 30 }));
    });

    it('options that are not an object are refused', () => {
      refused(withOptions([]), 'options: expected an object, got a list');
      refused(withOptions(null), 'options: expected an object, got null');
    });
  });

  it('lists every problem at once, each with its own path', () => {
    const message = refused(
      parsePayoutInput({
        request: request({
          amount: 1.5,
          currency: 'eur',
          method: { type: 'fps', phone: '8912', bankId: '' },
        }),
      }),
    );
    expect(message.split('; ').map((part) => part.split(':')[0])).toEqual([
      'request.method.phone',
      'request.method.bankId',
      'request.amount',
      'request.currency',
    ]);
  });

  it('never shows the personal values it refuses, only what kind they were', () => {
    const message = refused(
      parsePayoutInput({
        request: request({
          recipient: { lastName: LAST, firstName: FIRST, taxReference: `${INN}9`, email: `${EMAIL}@` },
          method: { type: 'bank_account', bik: `${BIK}1`, account: `${ACCOUNT}7` },
          description: 5,
        }),
      }),
    );
    expect(message).toContain(
      'request.recipient.taxReference: expected 10 or 12 digits with valid check digits, as a string, got text of 13 characters',
    );
    expect(message).toContain('request.method.bik');
    expect(message).toContain('request.method.account');
    expect(message).toContain('request.recipient.email');
    for (const s of [`${INN}9`, `${BIK}1`, `${ACCOUNT}7`, '4081781', '0445252'])
      expect(message).not.toContain(s);
  });
});

describe('parseRefundInput', () => {
  it('a refund with and without an amount comes back equal', () => {
    const whole = { reference: 'refund-1', sessionId: 'ps_1001' };
    const part = { ...whole, amount: 20_000, pollAfterMs: 2_000 };
    expect(accepted(parseRefundInput(whole))).toStrictEqual(whole);
    expect(accepted(parseRefundInput({ ...part, session: 'x' }))).toStrictEqual(part);
  });
  it.each(notObjects)('refuses %s', (_name, raw) => {
    refused(parseRefundInput(raw), 'input: expected an object');
  });
  it.each([
    [{ sessionId: 'ps_1' }, 'reference: expected 1–64 characters'],
    [{ reference: 'r 1', sessionId: 'ps_1' }, 'reference: expected 1–64 characters'],
    [{ reference: 'r1' }, 'sessionId: expected non-blank a session id'],
    [{ reference: 'r1', sessionId: ' ' }, 'sessionId: expected non-blank a session id'],
    [
      { reference: 'r1', sessionId: 'ps_1', amount: '200' },
      'amount: expected a positive whole number of kopecks, got "200"',
    ],
    [
      { reference: 'r1', sessionId: 'ps_1', amount: 0 },
      'amount: expected a positive whole number of kopecks, got 0',
    ],
    [
      { reference: 'r1', sessionId: 'ps_1', pollAfterMs: 0 },
      'pollAfterMs: expected milliseconds from 100 to 3600000, got 0',
    ],
  ])('%p is refused', (raw, message) => {
    refused(parseRefundInput(raw), message);
  });
});

describe('parseBatchWorkflowInput', () => {
  const batchId = 'batch-0123456789abcdef';
  const first = { continued: false };

  it('a batch with options comes back equal; unknown keys are refused, named', () => {
    const input = {
      batchId,
      options: {
        requireApproval: true,
        maxInFlight: 20,
        checkFunds: true,
        fundsRecheckMs: 60_000,
        continueAsNewAfterEvents: 10_000,
        payout: { pollAfterMs: 60_000, awaitCreditConfirmation: false },
      },
    };
    expect(accepted(parseBatchWorkflowInput(input, first))).toStrictEqual(input);
    refused(
      parseBatchWorkflowInput({ batchId, extra: 1, options: { turbo: true } }, first),
      'extra: expected no such field',
      'options.turbo: expected no such field',
    );
    accepted(parseBatchWorkflowInput({ batchId: `${batchId}-retry-3` }, first));
  });

  it.each(notObjects)('refuses %s', (_name, raw) => {
    refused(parseBatchWorkflowInput(raw, first), 'input: expected an object');
  });

  it('batchId is required and must be a batch id', () => {
    expect(refused(parseBatchWorkflowInput({}, first))).toBe(
      'batchId: expected batch-<16 hex digits>, optionally followed by -retry-<n>, but it is missing',
    );
    refused(
      parseBatchWorkflowInput({ batchId: 'payout-1' }, first),
      'batchId: expected batch-<16 hex digits>',
    );
  });

  it.each([0, 501, 1.5, -1, '20', null])('maxInFlight %p is refused', (maxInFlight) => {
    refused(
      parseBatchWorkflowInput({ batchId, options: { maxInFlight } }, first),
      'options.maxInFlight: expected a whole number from 1 to 500, got',
    );
  });
  it.each([1, 500])('maxInFlight %p is accepted', (maxInFlight) => {
    accepted(parseBatchWorkflowInput({ batchId, options: { maxInFlight } }, first));
  });

  it.each([
    ['fundsRecheckMs', 50],
    ['fundsRecheckMs', -1],
    ['continueAsNewAfterEvents', 5],
    ['continueAsNewAfterEvents', 50_000],
    ['continueAsNewAfterEvents', 100.5],
    ['checkFunds', 'no'],
    ['requireApproval', 1],
  ])('%s = %p is refused', (key, value) => {
    refused(
      parseBatchWorkflowInput({ batchId, options: { [key]: value } }, first),
      `options.${key}: expected`,
    );
  });

  it("the payouts' options are checked with their own path", () => {
    refused(
      parseBatchWorkflowInput({ batchId, options: { payout: { pollAfterMs: 0 } } }, first),
      'options.payout.pollAfterMs: expected milliseconds from 100 to 3600000, got 0',
    );
  });

  const carry = {
    meta: { fileName: 'a.csv', rowCount: 3, invalidRows: 0, totalKopecks: 300, chunkCount: 1 },
    nextChunk: 1,
    dispatched: 3,
    dispatchedKopecks: 300,
    tally: { counts: {}, amounts: {}, failures: [], failureCount: 0 },
    inFlight: [{ row: 2, reference: 'r-1', amount: 100 }],
    unflushed: [],
    approval: { by: 'maria', at: '2024-06-01T00:00:00.000Z' },
    fundsOk: true,
    paused: false,
    runs: 2,
    somethingAddedLater: { kept: true },
  };

  it('a carry is passed through untouched when the batch continued as new', () => {
    const input = { batchId, carry };
    expect(accepted(parseBatchWorkflowInput(input, { continued: true }))).toStrictEqual(input);
  });

  it('a carry on a first run is refused: it would skip approval and the funds check', () => {
    expect(refused(parseBatchWorkflowInput({ batchId, carry }, first))).toBe(
      'carry: expected no carry when starting a batch (only the batch itself sets it on continue-as-new)',
    );
  });

  it('a malformed carry is refused even when continued', () => {
    refused(
      parseBatchWorkflowInput({ batchId, carry: {} }, { continued: true }),
      'carry.meta: expected an object',
    );
    refused(
      parseBatchWorkflowInput({ batchId, carry: { ...carry, nextChunk: '1' } }, { continued: true }),
      'carry.nextChunk: expected a whole number, 0 or more, got "1"',
    );
    refused(
      parseBatchWorkflowInput({ batchId, carry: [] }, { continued: true }),
      'carry: expected an object',
    );
  });
});

describe('parseWebhookInboxInput', () => {
  it('no input at all runs on defaults', () => {
    expect(accepted(parseWebhookInboxInput(undefined))).toStrictEqual({});
    expect(accepted(parseWebhookInboxInput(null))).toStrictEqual({});
    expect(accepted(parseWebhookInboxInput({}))).toStrictEqual({});
  });
  it('options and the carried-over state come back equal', () => {
    const state = {
      pending: [],
      routedCount: 3,
      routed: [],
      orphaned: [],
      topups: [],
      unknown: [],
      dismissedCount: 0,
      seenIds: ['a'],
      future: 1,
    };
    const input = {
      options: {
        rerouteWindowMs: 1_000,
        rerouteInitialIntervalMs: 200,
        rerouteMaxIntervalMs: 400,
        routedKept: 50,
        continueAsNewAfterEvents: 25,
      },
      state,
    };
    expect(accepted(parseWebhookInboxInput(input))).toStrictEqual(input);
  });
  it.each([
    [
      { options: { rerouteInitialIntervalMs: 0 } },
      'options.rerouteInitialIntervalMs: expected milliseconds from 100',
    ],
    [{ options: { routedKept: -1 } }, 'options.routedKept: expected a whole number from 0 to 1000, got -1'],
    [
      { options: { continueAsNewAfterEvents: 1 } },
      'options.continueAsNewAfterEvents: expected a whole number from 10',
    ],
    [{ state: 'x' }, 'state: expected an object, got "x"'],
    [[], 'input: expected an object, got a list'],
  ])('%p is refused', (raw, message) => {
    refused(parseWebhookInboxInput(raw), message);
  });
});

describe('parseBankEvent', () => {
  const base = { id: 'e3b0c44298fc1c14', receivedAt: '2024-06-01T10:00:00.000Z' };

  it('a session event comes back equal, the bank document kept whole', () => {
    const session = {
      id: 'ps_1001',
      status: 'processing',
      payments: [{ id: 'po_1', status: 'pending', payment_method: { card: { masked: '220000******0012' } } }],
      next_action: null,
    };
    const evt = { ...base, type: 'ready_to_confirm', sessionId: 'ps_1001', session };
    expect(accepted(parseBankEvent(evt))).toStrictEqual(evt);
  });

  it('a session event keeps the webhook as the bank signed it', () => {
    const signed = { body: Buffer.from('{"type":"ready_to_confirm"}').toString('base64'), signature: 'c2ln' };
    const evt = { ...base, type: 'ready_to_confirm', sessionId: 'ps_1', signed };
    expect(accepted(parseBankEvent(evt))).toStrictEqual(evt);
  });

  it('confirmation_payout, nominal_topup, unknown and late events come back equal', () => {
    const events = [
      {
        ...base,
        type: 'confirmation_payout',
        sessionId: 'ps_1',
        confirmation: { event: 'credited', eventDate: '2024-06-02', transactionId: 't1' },
      },
      { ...base, type: 'nominal_topup', body: { amount: { value: 100 } } },
      { ...base, type: 'unknown', body: 'not json' },
      { ...base, type: 'payment_finished', sessionId: 'ps_1', lateFor: ['payout-a', 'refund-b'] },
    ];
    for (const evt of events) expect(accepted(parseBankEvent(evt))).toStrictEqual(evt);
  });

  it('unknown top-level keys are stripped', () => {
    expect(accepted(parseBankEvent({ ...base, type: 'unknown', forged: true }))).toStrictEqual({
      ...base,
      type: 'unknown',
    });
  });

  it.each(notObjects)('refuses %s', (_name, raw) => {
    refused(parseBankEvent(raw), 'input: expected an object');
  });

  it.each([
    [{}, 'id: expected non-blank an event id'],
    [{ ...base, id: '' }, 'id: expected non-blank an event id'],
    [{ ...base, type: 'payment_done' }, 'type: expected one of ready_to_confirm, payment_finished'],
    [
      { id: 'x', type: 'unknown' },
      'receivedAt: expected a timestamp of at most 64 characters, but it is missing',
    ],
    [{ ...base, type: 'unknown', sessionId: 7 }, 'sessionId: expected a session id'],
    [{ ...base, type: 'ready_to_confirm', session: { status: 'x' } }, 'session.id: expected a session id'],
    [
      { ...base, type: 'ready_to_confirm', session: null },
      'session: expected an object with a string id, got null',
    ],
    [{ ...base, type: 'ready_to_confirm', session: [] }, 'session: expected an object with a string id'],
    [
      { ...base, type: 'confirmation_payout', confirmation: { event: 'x' } },
      'confirmation.eventDate: expected a date',
    ],
    [
      { ...base, type: 'ready_to_confirm', signed: { body: '{"type":1}', signature: 'c2ln' } },
      'signed.body: expected the webhook body: Base64 of at most 87384 characters',
    ],
    [
      { ...base, type: 'ready_to_confirm', signed: { body: 'A'.repeat(87_388), signature: 'c2ln' } },
      'signed.body: expected the webhook body: Base64',
    ],
    [
      { ...base, type: 'ready_to_confirm', signed: { body: 'e30=' } },
      'signed.signature: expected the X-PARTNER-SIGN signature: Base64',
    ],
    [{ ...base, type: 'unknown', lateFor: 'payout-a' }, 'lateFor: expected a list of workflow ids'],
    [{ ...base, type: 'unknown', lateFor: ['payout-a', 5] }, 'lateFor.1: expected a workflow id'],
  ])('%p is refused', (raw, message) => {
    refused(parseBankEvent(raw), message);
  });
});

describe('operator commands', () => {
  const commands = [
    ['parseApproval', parseApproval, 'note'],
    ['parseCancellation', parseCancellation, 'reason'],
    ['parsePauseResume', parsePauseResume, 'note'],
  ] as const;

  describe.each(commands)('%s', (_name, parse, remark) => {
    it.each(notObjects)('refuses %s', (_what, raw) => {
      refused(parse(raw), 'input: expected an object');
    });

    it.each([
      ['{}', {}, 'by: expected the name of who decided: 1–128 printable characters, but it is missing'],
      [
        'a number',
        { by: 123 },
        'by: expected the name of who decided: 1–128 printable characters, got a number',
      ],
      [
        'blank',
        { by: '  ' },
        'by: expected the name of who decided: 1–128 printable characters, got text of 2 characters',
      ],
      ['null', { by: null }, 'by: expected the name of who decided: 1–128 printable characters, got null'],
      [
        '129 characters',
        { by: 'm'.repeat(129) },
        'by: expected the name of who decided: 1–128 printable characters, got text of 129 characters',
      ],
      [
        'a control character',
        { by: 'maria\u0000' },
        'by: expected the name of who decided: 1–128 printable characters, got text of 6 characters',
      ],
      [
        'a newline inside',
        { by: 'maria\nroot' },
        'by: expected the name of who decided: 1–128 printable characters, got text of 10 characters',
      ],
      [
        'an object',
        { by: { name: 'maria' } },
        'by: expected the name of who decided: 1–128 printable characters, got an object',
      ],
    ])('refuses by as %s', (_what, raw, message) => {
      expect(refused(parse(raw))).toBe(message);
    });

    it('trims by, keeps the remark, strips everything else', () => {
      expect(accepted(parse({ by: '  maria.accountant ', [remark]: 'checked', force: true }))).toStrictEqual({
        by: 'maria.accountant',
        [remark]: 'checked',
      });
      expect(accepted(parse({ by: `  ${'m'.repeat(128)}  ` }))).toStrictEqual({ by: 'm'.repeat(128) });
      expect(accepted(parse({ by: 'Мария Иванова' }))).toStrictEqual({ by: 'Мария Иванова' });
    });

    it(`${remark} is text of at most 500 characters`, () => {
      accepted(parse({ by: 'm', [remark]: 'x'.repeat(500) }));
      refused(
        parse({ by: 'm', [remark]: 'x'.repeat(501) }),
        `${remark}: expected text of at most 500 characters`,
      );
      refused(
        parse({ by: 'm', [remark]: 5 }),
        `${remark}: expected text of at most 500 characters, got a number`,
      );
    });
  });

  it('a cancellation drops a note and an approval drops a reason (not theirs)', () => {
    expect(accepted(parseCancellation({ by: 'a', note: 'n' }))).toStrictEqual({ by: 'a' });
    expect(accepted(parseApproval({ by: 'a', reason: 'r' }))).toStrictEqual({ by: 'a' });
  });
});

describe('invalidInput', () => {
  it('is a non-retryable ApplicationFailure of type invalid_input carrying the message', () => {
    const r = parseApproval({ by: 123 });
    if (r.ok) throw new Error('expected a refusal');
    const failure = invalidInput(r.message);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('invalid_input');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(r.message);
  });
});
