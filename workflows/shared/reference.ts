import type { PayoutMethod } from '../../src/domain';

/** Who a payout pays, as a payout's status records it (workflows/payout/contract.ts). */
type Payee = { taxReference: string; method: PayoutMethod };

/**
 * A reference belongs to one payout: the same payee (tax number and payment details) and amount.
 * Returns what differs between an earlier payout and a request reusing its reference, in words that
 * name fields, never their values (they are card numbers, accounts, tax numbers); empty = the same.
 */
export function referenceDifferences(
  earlier: { amount: number; payee?: Payee },
  wanted: { amount: number; payee: Payee },
): string[] {
  const out: string[] = [];
  if (earlier.amount !== wanted.amount) out.push(`amount (${earlier.amount} vs ${wanted.amount} kopecks)`);
  // A status recorded before payee existed (older histories) cannot be compared field by field.
  if (!earlier.payee) return [...out, 'payee (the earlier payout does not record it)'];
  if (earlier.payee.taxReference !== wanted.payee.taxReference) out.push('recipient tax number (INN)');
  out.push(...methodDifferences(earlier.payee.method, wanted.payee.method));
  return out;
}

function methodDifferences(a: PayoutMethod, b: PayoutMethod): string[] {
  if (a.type !== b.type) return [`payment method (${a.type} vs ${b.type})`];
  switch (a.type) {
    case 'card':
      return a.cardNumber === (b as typeof a).cardNumber ? [] : ['card number'];
    case 'bank_account': {
      const o = b as typeof a;
      return a.bik === o.bik && a.account === o.account ? [] : ['bank account (BIK or account number)'];
    }
    case 'fps': {
      const o = b as typeof a;
      return a.phone === o.phone && a.bankId === o.bankId ? [] : ['FPS phone or bank'];
    }
  }
}
