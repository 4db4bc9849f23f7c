import type { FiscalizationDetailsParams, InitPayoutParams, PaymentMethodParams } from '../src/bank';
import type { PayerConfig } from '../src/config';
import type { PayoutMethod, PayoutRequest } from '../src/csv/types';
import { METADATA_KEY, type PayrunMetadata } from '../workflows/definitions';

/** Builds the bank's payout request from a batch row: one mapping, used by every payout. */
export function payoutMethodBlock(method: PayoutMethod, description?: string): PaymentMethodParams {
  switch (method.type) {
    case 'card':
      return { type: 'card', card: { type: 'bank_card', bank_card: { number: method.cardNumber } } };
    case 'bank_account':
      return {
        type: 'bank_account',
        bank_account: { system_type: 'ru', ru: { bik: method.bik, account: method.account, description } },
      };
    case 'fps':
      return {
        type: 'bank_account',
        bank_account: {
          system_type: 'faster_payment_system',
          faster_payment_system: { phone: method.phone, bank_id: method.bankId, description },
        },
      };
  }
}

export function buildPayoutParams(
  request: PayoutRequest,
  routing: { workflowId: string; batchId?: string },
): InitPayoutParams {
  const { recipient } = request;
  const metadata: { [METADATA_KEY]: PayrunMetadata } = {
    [METADATA_KEY]: {
      workflow_id: routing.workflowId,
      reference: request.reference,
      ...(routing.batchId ? { batch_id: routing.batchId } : {}),
      ...(request.metadata !== undefined ? { user: request.metadata } : {}),
    },
  };
  const amount_details = { amount: request.amount, currency: request.currency };
  return {
    payment_method: payoutMethodBlock(request.method, request.description),
    amount_details,
    participant_details: {
      recipient: {
        first_name: recipient.firstName,
        last_name: recipient.lastName,
        ...(recipient.middleName ? { middle_name: recipient.middleName } : {}),
        reference: request.reference,
      },
    },
    ...(recipient.email
      ? { customer: { reference: request.reference, contacts: [{ email: recipient.email }] } }
      : {}),
    metadata,
  };
}

/** The receipt data for a self-employed recipient: payer from configuration, the service from the row. */
export function fiscalizationDetails(request: PayoutRequest, payer: PayerConfig): FiscalizationDetailsParams {
  return {
    professional_income_taxpayer: {
      tax_reference: request.recipient.taxReference,
      payer_type: payer.payerType,
      payer_tax_number: payer.payerTaxNumber,
      payer_name: payer.payerName,
      services: [
        {
          name: request.serviceName,
          amount_details: { amount: request.amount, currency: request.currency },
          quantity: 1,
        },
      ],
    },
  };
}
