/**
 * Documented test values that force outcomes in the sandbox (docs/sandbox.md has the table).
 * payrun's tests import these names instead of repeating magic numbers. Cards are Luhn-valid,
 * tax numbers are 12-digit individual INNs with valid check digits. Any other valid value succeeds
 * (any other valid INN is a self-employed person linked to the partner).
 */

/** What the bank does with a payout or payment. */
export type Outcome =
  | 'succeed'
  | 'decline' // payment_finished failed, declined_by_issuer_bank
  | 'stay_pending' // confirm accepted, payment_finished never comes
  | 'internal_error' // the start request fails with HTTP 500 internal_error, nothing is created (every time)
  | 'internal_error_once' // first attempt (per idempotency key, else per body) fails as above, a retry works
  | 'returned' // succeeds, then payment_refunded: the recipient bank returned the payout
  | 'confirmation_payout_late' // confirmation_payout after 7 business days (optional webhooks on)
  | 'confirmation_payout_never'; // succeeds, confirmation_payout never sent

/** Cards (payouts to cards, card payments). */
export const TEST_CARDS = {
  SUCCESS: '2200000000000012',
  SUCCESS_VISA: '4111111111111111',
  SUCCESS_MASTERCARD: '5555555555554444',
  DECLINED_BY_ISSUER: '2200000000000020',
  STAYS_PENDING: '2200000000000038',
  INTERNAL_ERROR: '2200000000000046',
  INTERNAL_ERROR_ONCE: '2200000000000053',
  RETURNED: '2200000000000061',
  CONFIRMATION_PAYOUT_NEVER: '2200000000000079',
  /** Payment: action_required (3DS redirect) first; completes when the redirect URL is opened, expires after 20 min. */
  THREE_DS: '2200000000000087',
  /** Payment: two-stage (hold): pending + ready_to_capture instead of ready_to_confirm. */
  TWO_STAGE: '2200000000000095',
  /** Succeeds; confirmation_payout only after 7 business days. */
  CONFIRMATION_PAYOUT_LATE: '2200000000000103',
} as const;

/** Amounts in kopecks (any method: bank account, FPS, card). */
export const TEST_AMOUNTS = {
  DECLINED_BY_ISSUER: 40_051,
  STAYS_PENDING: 40_052,
  INTERNAL_ERROR: 40_053,
  INTERNAL_ERROR_ONCE: 40_054,
  RETURNED: 40_055,
  CONFIRMATION_PAYOUT_NEVER: 40_056,
  CONFIRMATION_PAYOUT_LATE: 40_057,
} as const;

/** Individual tax numbers (INN-12, valid check digits). */
export const TEST_INNS = {
  /** Any valid INN not listed here behaves like this one. */
  SELF_EMPLOYED_LINKED: '770700000190',
  NOT_SELF_EMPLOYED: '770700000264',
  SELF_EMPLOYED_NOT_LINKED: '770700000338',
  /** npd/request/status stays `pending` forever. */
  NPD_PENDING_FOREVER: '770700000401',
  /** Fiscalized payout (tax_reference) declined at the issuer. */
  PAYOUT_DECLINED: '770700000585',
  /** Fiscalized payout stays pending after confirm. */
  PAYOUT_STAYS_PENDING: '770700000659',
  /** account_status shows a debt. */
  WITH_DEBT: '770700000722',
  /** check_personal_info reports violations second_name and phone. */
  PERSONAL_INFO_MISMATCH: '770700000803',
} as const;

/** FPS phones (11 digits starting with 7). */
export const TEST_PHONES = {
  FOUND: '79000000001',
  /** fps/customer_verification: recipient not registered in FPS, session cancelled. */
  FPS_NOT_FOUND: '79000000404',
  /** FPS payment: the QR is never paid and expires (qr_expired). */
  QR_NEVER_PAID: '79000000408',
} as const;

const CARD_OUTCOMES: Record<string, Outcome> = {
  [TEST_CARDS.DECLINED_BY_ISSUER]: 'decline',
  [TEST_CARDS.STAYS_PENDING]: 'stay_pending',
  [TEST_CARDS.INTERNAL_ERROR]: 'internal_error',
  [TEST_CARDS.INTERNAL_ERROR_ONCE]: 'internal_error_once',
  [TEST_CARDS.RETURNED]: 'returned',
  [TEST_CARDS.CONFIRMATION_PAYOUT_NEVER]: 'confirmation_payout_never',
  [TEST_CARDS.CONFIRMATION_PAYOUT_LATE]: 'confirmation_payout_late',
};

const AMOUNT_OUTCOMES: Record<number, Outcome> = {
  [TEST_AMOUNTS.DECLINED_BY_ISSUER]: 'decline',
  [TEST_AMOUNTS.STAYS_PENDING]: 'stay_pending',
  [TEST_AMOUNTS.INTERNAL_ERROR]: 'internal_error',
  [TEST_AMOUNTS.INTERNAL_ERROR_ONCE]: 'internal_error_once',
  [TEST_AMOUNTS.RETURNED]: 'returned',
  [TEST_AMOUNTS.CONFIRMATION_PAYOUT_NEVER]: 'confirmation_payout_never',
  [TEST_AMOUNTS.CONFIRMATION_PAYOUT_LATE]: 'confirmation_payout_late',
};

const INN_OUTCOMES: Record<string, Outcome> = {
  [TEST_INNS.PAYOUT_DECLINED]: 'decline',
  [TEST_INNS.PAYOUT_STAYS_PENDING]: 'stay_pending',
};

/** The forced outcome of an operation: the card wins over the amount, the amount over the tax number. */
export function outcomeFor(sel: { card?: string; amount?: number; taxReference?: string }): Outcome {
  return (
    (sel.card !== undefined ? CARD_OUTCOMES[sel.card] : undefined) ??
    (sel.amount !== undefined ? AMOUNT_OUTCOMES[sel.amount] : undefined) ??
    (sel.taxReference !== undefined ? INN_OUTCOMES[sel.taxReference] : undefined) ??
    'succeed'
  );
}

export interface NpdProfile {
  isTaxpayer: boolean;
  isLinked: boolean;
  pendingForever: boolean;
}

export function npdProfile(inn: string): NpdProfile {
  return {
    isTaxpayer: inn !== TEST_INNS.NOT_SELF_EMPLOYED,
    isLinked: inn !== TEST_INNS.NOT_SELF_EMPLOYED && inn !== TEST_INNS.SELF_EMPLOYED_NOT_LINKED,
    pendingForever: inn === TEST_INNS.NPD_PENDING_FOREVER,
  };
}
