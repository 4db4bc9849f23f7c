import type { PayoutMethod } from '../../src/domain';
import type { PayoutStatus } from '../payout/contract';

/**
 * A reference belongs to one payout: the same payee (tax number and payment details) and amount.
 * Returns what differs between an earlier payout and a request reusing its reference, in words that
 * name fields, never their values (they are card numbers, accounts, tax numbers); empty = the same.
 */
export function referenceDifferences(
  earlier: Pick<PayoutStatus, 'amount'> & { payee?: PayoutStatus['payee'] },
  wanted: Pick<PayoutStatus, 'amount' | 'payee'>,
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
