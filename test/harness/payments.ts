import { randomUUID } from 'node:crypto';
import type { BankClient } from '../../src/bank';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import type { Stack } from './stack';
import { waitFor } from './wait';

/** A card payment taken through the bank (the partner confirms it), to have something to refund. */
export async function succeededPayment(bank: BankClient, amount: number): Promise<string> {
  const { session } = await bank.sessions.initPayment({
    payment_details: {
      type: 'card',
      card: {
        type: 'bank_card',
        bank_card: {
          number: TEST_CARDS.SUCCESS,
          expiration_month: '12',
          expiration_year: '30',
          security_code: '123',
        },
      },
    },
    amount_details: { amount, currency: 'rub' },
    customer: { reference: `customer-${randomUUID()}` },
    payment_options: { return_url: 'https://example.test/return' },
  });
  const id = session!.id;
  const state = async () => (await bank.sessions.status({ session_id: id })).session!;
  await waitFor(async () => (await state()).acquiring_payments?.[0]?.status === 'pending');
  await bank.sessions.confirm({ session_id: id });
  await waitFor(async () => (await state()).status === 'accepted');
  return id;
}

/** Refunds of one session in the sandbox's ledger: what the bank gave back is what was refunded. */
export function refundEntries(stack: Stack, sessionId: string) {
  return stack.sandbox.ledger().filter((e) => e.kind === 'refund' && e.session_id === sessionId);
}
