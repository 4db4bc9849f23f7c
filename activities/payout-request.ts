import type {
  FiscalizationDetailsParams,
  InitPayoutFiscalizationParams,
  InitPayoutParams,
  PaymentMethodParams,
} from '../src/bank';
import type { PayerConfig } from '../src/config';
import { FPS_DESCRIPTION_MAX, type PayoutRequest } from '../src/domain';
import { METADATA_KEY, type PayrunMetadata } from '../src/routing/metadata';

/**
 * The recipient's name as the bank's `full_name` wants it: family name, given name, patronymic
 * (the order of Russian payment documents), single spaces, no blanks.
 */
export function recipientFullName(recipient: PayoutRequest['recipient']): string {
  return [recipient.lastName, recipient.firstName, recipient.middleName]
    .map((part) => part?.trim().replace(/\s+/g, ' '))
    .filter((part): part is string => !!part)
    .join(' ');
}

/**
 * The payment description. The bank requires one for bank-account and FPS payouts, and a batch
 * row may leave it blank, so the default names the payout (its reference, which accounting can
 * search for) and the service, cut to the FPS limit (decision D20). A row's own description is
 * sent unchanged (trimmed): the CSV check refuses an FPS description over the limit, and the bank client
 * refuses any other caller's, so it is never cut silently.
 */
export function payoutDescription(
  request: Pick<PayoutRequest, 'description' | 'reference' | 'serviceName'>,
): string {
  const own = request.description?.trim();
  if (own) return own;
  const text = `Выплата ${request.reference}: ${request.serviceName.trim().replace(/\s+/g, ' ')}`;
  const chars = [...text];
  return chars.length <= FPS_DESCRIPTION_MAX ? text : `${chars.slice(0, FPS_DESCRIPTION_MAX - 1).join('')}…`;
}

/** The method block of a payout; every field the spec requires for the method is filled. */
export function payoutMethodBlock(request: PayoutRequest): PaymentMethodParams {
  const { method } = request;
  switch (method.type) {
    case 'card':
      return { type: 'card', card: { type: 'bank_card', bank_card: { number: method.cardNumber } } };
    case 'bank_account':
      return {
        type: 'bank_account',
        bank_account: {
          system_type: 'ru',
          ru: {
            bik: method.bik,
            account: method.account,
            full_name: recipientFullName(request.recipient),
            description: payoutDescription(request),
          },
        },
      };
    case 'fps':
      return {
        type: 'bank_account',
        bank_account: {
          system_type: 'faster_payment_system',
          faster_payment_system: {
            phone: method.phone,
            bank_id: method.bankId,
            description: payoutDescription(request),
          },
        },
      };
  }
}

/**
 * Builds the bank's payout request from a batch row: one mapping, used by every payout. Names are
 * the client's (API v1) names; the client renames `payment_method` for a v2 path itself.
 */
export function buildPayoutParams(
  request: PayoutRequest,
  routing: { workflowId: string; batchId?: string; endsAtResult?: boolean },
): InitPayoutParams {
  const { recipient } = request;
  const metadata: { [METADATA_KEY]: PayrunMetadata } = {
    [METADATA_KEY]: {
      workflow_id: routing.workflowId,
      reference: request.reference,
      ...(routing.batchId ? { batch_id: routing.batchId } : {}),
      ...(routing.endsAtResult ? { ends_at_result: true as const } : {}),
      ...(request.metadata !== undefined ? { user: request.metadata } : {}),
    },
  };
  const amount_details = { amount: request.amount, currency: request.currency };
  return {
    payment_method: payoutMethodBlock(request),
    amount_details,
    participant_details: {
      recipient: {
        first_name: recipient.firstName,
        last_name: recipient.lastName,
        ...(recipient.middleName ? { middle_name: recipient.middleName } : {}),
        ...(recipient.citizenship ? { citizenship_country_iso3: recipient.citizenship } : {}),
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

/**
 * Which bank method pays the row and with what: a self-employed recipient's payout carries the
 * receipt data and goes through init/payout/fiscalization (which checks it is complete); anyone
 * else's is a plain init/payout without a fiscalization block.
 */
export type PayoutCall =
  | { method: 'initPayoutFiscalization'; params: InitPayoutFiscalizationParams }
  | { method: 'initPayout'; params: InitPayoutParams };

export function payoutCall(
  request: PayoutRequest,
  routing: { workflowId: string; batchId?: string; endsAtResult?: boolean },
  payer: PayerConfig,
): PayoutCall {
  const params = buildPayoutParams(request, routing);
  return request.selfEmployed
    ? {
        method: 'initPayoutFiscalization',
        params: { ...params, fiscalization_details: fiscalizationDetails(request, payer) },
      }
    : { method: 'initPayout', params };
}
