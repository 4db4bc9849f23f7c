import { defaultPayloadConverter } from '@temporalio/common';
import { payoutRequestSchema, type PayoutRequest } from '../../src/domain';
import {
  CUSTOMER_REFERENCE_MAX,
  DESCRIPTION_MAX,
  EMAIL_MAX,
  NAME_MAX,
  SERVICE_NAME_MAX,
} from '../../src/domain/rules';
import { EncryptionCodec, KeyRing } from '../../src/temporal/codec';
import type { PayoutStatus } from '../../workflows/payout/contract';
import { NOTES_KEPT } from '../../workflows/payout/tracker';
import { TEST_INNS } from '../../src/sandbox/test-values';

const codec = new EncryptionCodec(new KeyRing([{ id: 'measure', key: Buffer.alloc(32, 7) }]));

/** Bytes of `value` as it reaches Temporal: JSON payload encrypted by payrun's codec (data and metadata). */
export async function encodedBytes(value: unknown): Promise<number> {
  const [payload] = await codec.encode([defaultPayloadConverter.toPayload(value)]);
  return (payload!.data?.length ?? 0) + Buffer.byteLength(JSON.stringify(payload!.metadata ?? {}));
}

/** `n` Cyrillic letters: two bytes each in UTF-8, the longest text a field of n characters holds. */
const cyrillic = (n: number) => 'Щ'.repeat(n);
/** A bank id or event id at the longest payrun takes (workflows/shared/bank-event-contract.ts: 256 characters). */
export const longId = (i: number) => `${i}-`.padEnd(256, 'z');

/** A 19-digit card number with its Luhn check digit (the longest card the rules take). */
function longCard(): string {
  const body = '220000000000000001';
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

/** A valid payout request with every bounded field at its longest and `metadataBytes` of metadata (at most METADATA_MAX characters of JSON in all, D24). */
export function maximalRequest(i: number, metadataBytes = 0): PayoutRequest {
  const request: PayoutRequest = {
    reference: `r${i}-`.padEnd(64, 'x'),
    recipient: {
      lastName: cyrillic(NAME_MAX),
      firstName: cyrillic(NAME_MAX),
      middleName: cyrillic(NAME_MAX),
      taxReference: TEST_INNS.SELF_EMPLOYED_LINKED,
      email: `${'a'.repeat(EMAIL_MAX - 12)}@example.com`,
      citizenship: 'RUS',
    },
    method: { type: 'card', cardNumber: longCard() },
    amount: 999_999_999_99,
    currency: 'rub',
    serviceName: cyrillic(SERVICE_NAME_MAX),
    description: cyrillic(DESCRIPTION_MAX),
    ...(metadataBytes > 0
      ? { metadata: { note: 'm'.repeat(metadataBytes), ref: 'c'.repeat(CUSTOMER_REFERENCE_MAX) } }
      : {}),
    selfEmployed: true,
  };
  return payoutRequestSchema().parse(request);
}

/** The status of an earlier payout of `request` at its largest: every bank id, a long failure, 50 notes of the longest ids. */
export function maximalStatus(request: PayoutRequest, i: number): PayoutStatus {
  return {
    reference: request.reference,
    state: 'failed',
    amount: request.amount,
    currency: request.currency,
    batchId: `b-${longId(i)}`.slice(0, 64),
    bank: {
      sessionId: longId(i),
      payoutId: longId(i),
      receiptId: longId(i),
      receiptLink: longId(i),
      rrn: longId(i),
      authCode: longId(i),
    },
    payee: { taxReference: request.recipient.taxReference, method: request.method },
    taxpayer: { isProfessionalIncomeTaxpayer: true, isLinked: true, checkedAt: new Date(0).toISOString() },
    approval: { required: true, approvedBy: longId(i), approvedAt: new Date(0).toISOString() },
    failure: { code: longId(i), reason: cyrillic(1024) },
    timestamps: Object.fromEntries(
      ['started', 'sessionCreated', 'readyToConfirm', 'confirmed', 'finished', 'credited', 'returned'].map(
        (k) => [k, new Date(0).toISOString()],
      ),
    ),
    notes: Array.from(
      { length: NOTES_KEPT },
      (_, n) => `ignored payment_finished for another session ${longId(n)}`,
    ),
  };
}
