import { defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import type { PaymentSession } from '../../src/bank/types/session';
import { field, nonBlank, text } from '../../src/domain';
import { base64, object, parseWith, type Fits, type Keys, type Result } from './parse';

// The bank events a verified webhook becomes: the signal the ingress sends to payrun's workflows.

export type BankEventType =
  | 'ready_to_confirm'
  | 'payment_finished'
  | 'action_required'
  | 'ready_to_capture'
  | 'payment_refunded'
  | 'confirmation_payout'
  | 'nominal_topup'
  | 'unknown';

/**
 * A session webhook exactly as the bank sent it: the raw body (Base64, so every byte survives) and its
 * X-PARTNER-SIGN. Anyone who can reach Temporal can send a `bankEvent` signal; only the bank can sign,
 * so a payout acts on a session in a signal only after checking this signature itself (a local
 * activity with the bank's public key) and reads session/status when it is absent or wrong.
 */
export interface SignedWebhook {
  body: string;
  signature: string;
}

/** Bodies above this are sent without `signed` (the workflow then reads session/status). */
export const MAX_SIGNED_WEBHOOK_BYTES = 64 * 1024;
/** A signature above this (an RSA key above 8192 bits) is sent without `signed`, like a big body. */
export const MAX_SIGNATURE_BYTES = 1024;

/**
 * A verified webhook as the ingress hands it to a workflow. `id` is the SHA-256 of the raw body,
 * so a webhook the bank resends is recognised and applied once.
 */
export interface BankEventSignal {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  /** Present for session events (v1 names). */
  session?: PaymentSession;
  /** Session events: the webhook as signed, the only part a payout believes without asking the bank. */
  signed?: SignedWebhook;
  /** confirmation_payout fields. */
  confirmation?: { event: string; eventDate: string; transactionId?: string };
  /** The event body for anything else (nominal_topup, unknown types). */
  body?: unknown;
  /**
   * Set by the ingress when the workflows this event belongs to have already closed (for example a
   * confirmation_payout after its payout finished): the inbox records it instead of rerouting it.
   */
  lateFor?: string[];
}

export const bankEventSignal = defineSignal<[BankEventSignal]>('bankEvent');

// ---------------------------------------------------------------- the signal's rules

const BANK_EVENT_TYPES = [
  'ready_to_confirm',
  'payment_finished',
  'action_required',
  'ready_to_capture',
  'payment_refunded',
  'confirmation_payout',
  'nominal_topup',
  'unknown',
] as const satisfies readonly BankEventType[];

const bankEvent = object({
  id: nonBlank(256, 'an event id'),
  type: field<BankEventType>(`expected one of ${BANK_EVENT_TYPES.join(', ')}`, (v) =>
    (BANK_EVENT_TYPES as readonly unknown[]).includes(v),
  ),
  sessionId: text(256, 'a session id').optional(),
  receivedAt: text(64, 'a timestamp'),
  // The bank's own document: only what routing relies on is checked, everything else is kept.
  session: z
    .looseObject({ id: text(256, 'a session id') }, { error: 'expected an object with a string id' })
    .optional(),
  signed: object({
    body: base64(MAX_SIGNED_WEBHOOK_BYTES, 'the webhook body'),
    signature: base64(MAX_SIGNATURE_BYTES, 'the X-PARTNER-SIGN signature'),
  }).optional(),
  confirmation: object({
    event: text(256),
    eventDate: text(64, 'a date'),
    transactionId: text(256).optional(),
  }).optional(),
  body: z.unknown().optional(),
  lateFor: z.array(text(256, 'a workflow id'), { error: 'expected a list of workflow ids' }).optional(),
});

export function parseBankEvent(raw: unknown): Result<BankEventSignal> {
  return parseWith<BankEventSignal>(bankEvent, raw);
}

type _SchemaFitsItsType = [
  Fits<z.output<typeof bankEvent>, Omit<BankEventSignal, 'session'> & { session?: { id: string } }>,
  Fits<keyof BankEventSignal, Keys<typeof bankEvent>>,
];
