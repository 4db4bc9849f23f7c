/** Shared inputs for the pure workflow helper tests: recognisable values, so a leak is easy to spot. */
import type { PaymentSession } from '../../src/bank/types/session';
import type { PayoutMethod, PayoutRequest } from '../../src/domain';
import type { PayoutStatus } from '../../workflows/payout/contract';

export const CARD = '2200000000000012';
export const OTHER_CARD = '2200000000000020';
export const INN = '770700000190';
export const OTHER_INN = '500100732259';
export const BIK = '044525225';
export const ACCOUNT = '40817810099910004312';
export const PHONE = '79123456789';
export const FPS_BANK = '100000000111';
/** Every personal value above: a message or reason containing one has leaked it. */
export const SECRETS = [CARD, OTHER_CARD, INN, OTHER_INN, BIK, ACCOUNT, PHONE];

export const card: PayoutMethod = { type: 'card', cardNumber: CARD };
export const bankAccount: PayoutMethod = { type: 'bank_account', bik: BIK, account: ACCOUNT };
export const fps: PayoutMethod = { type: 'fps', phone: PHONE, bankId: FPS_BANK };

export function payoutStatus(extra: Partial<PayoutStatus> = {}): PayoutStatus {
  return {
    reference: 'r-1',
    state: 'succeeded',
    amount: 150_000,
    currency: 'rub',
    payee: { taxReference: INN, method: card },
    bank: {},
    timestamps: { started: '2026-01-01T00:00:00.000Z' },
    notes: [],
    ...extra,
  };
}

export function payoutRequest(extra: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    reference: 'r-1',
    recipient: { lastName: 'Иванова', firstName: 'Анна', taxReference: INN },
    method: card,
    amount: 150_000,
    currency: 'rub',
    serviceName: 'Дизайн логотипа',
    selfEmployed: true,
    ...extra,
  };
}

/** A v1 payment session with one payout in it (or none when payoutStatus is undefined). */
export function session(
  status: string,
  payoutStatus?: string,
  extra: Partial<PaymentSession> = {},
  payoutExtra: Record<string, unknown> = {},
): PaymentSession {
  return {
    id: 'ses-1',
    status,
    ...(payoutStatus ? { payments: [{ id: 'pay-1', status: payoutStatus, ...payoutExtra }] } : {}),
    ...extra,
  };
}
