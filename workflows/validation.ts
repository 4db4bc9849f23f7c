/**
 * What is left of the workflows' input checks before issue 36 dissolves this file: the refund's and the
 * webhook inbox's rules (moving to their folders' contract.ts). Everything else moved to the contract of
 * its workflow and to workflows/shared/parse.ts; it is re-exported here until the last user moves.
 */
import { z } from 'zod';
import { field, kopecksSchema, nonBlank, referenceSchema } from '../src/domain';
import type { WebhookInboxInput, WebhookInboxOptions } from './contracts/inbox';
import type { RefundInput } from './contracts/refund';
import type { WebhookInboxState } from './webhook-inbox-state';
import {
  count,
  DAY,
  HOUR,
  isPlainObject,
  millis,
  object,
  operatorName,
  parseWith,
  type Fits,
  type Keys,
  type Result,
} from './shared/parse';

export { invalidInput, type Result } from './shared/parse';
export { parsePayoutInput } from './payout/contract';
export { parseBatchWorkflowInput } from './batch/contract';
export { parseBankEvent } from './shared/bank-event-contract';
export { parseApproval, parseCancellation, parsePauseResume } from './shared/operator-contract';
export {
  parseTaxpayerCheckRequest,
  parseTaxpayerInput,
  parseTaxpayerVerdict,
  SEEDED_VERDICT_MAX_AGE_MS,
  TAXPAYER_WAITING_MAX,
  verdictAgeMs,
} from './taxpayer/contract';
export { parseAcknowledgement, parseConnectivityInput } from './connectivity-check/contract';

const kopecks = kopecksSchema;
const reference = referenceSchema;

// ---------------------------------------------------------------- refund

const refundInput = object({
  reference: reference(),
  sessionId: nonBlank(128, 'a session id'),
  amount: kopecks().optional(),
  pollAfterMs: millis(100, HOUR).optional(),
});

// ---------------------------------------------------------------- webhook inbox

const inboxInput = object({
  options: object({
    rerouteWindowMs: millis(0, DAY).optional(),
    rerouteInitialIntervalMs: millis(100, HOUR).optional(),
    rerouteMaxIntervalMs: millis(100, HOUR).optional(),
    routedKept: count(0, 1_000).optional(),
    continueAsNewAfterEvents: count(10, 40_000).optional(),
  }).optional(),
  /** The inbox's own carry-over: passed through untouched. */
  state: field<WebhookInboxState>('expected an object', isPlainObject).optional(),
});

const orphanDismissal = object({ id: nonBlank(256, 'an event id'), by: operatorName() });

export function parseRefundInput(raw: unknown): Result<RefundInput> {
  return parseWith<RefundInput>(refundInput, raw);
}

/** Started with no input (signalWithStart from the ingress passes `{}`), the inbox runs on its defaults. */
export function parseWebhookInboxInput(raw: unknown): Result<WebhookInboxInput> {
  return parseWith<WebhookInboxInput>(inboxInput, raw ?? {});
}

export function parseOrphanDismissal(raw: unknown): Result<{ id: string; by: string }> {
  return parseWith(orphanDismissal, raw);
}

type _SchemasFitTheirTypes = [
  Fits<z.output<typeof refundInput>, RefundInput>,
  Fits<keyof RefundInput, Keys<typeof refundInput>>,
  Fits<z.output<typeof inboxInput>, WebhookInboxInput>,
  Fits<keyof WebhookInboxInput, Keys<typeof inboxInput>>,
  Fits<NonNullable<z.output<typeof inboxInput>['options']>, WebhookInboxOptions>,
  Fits<keyof WebhookInboxOptions, keyof NonNullable<z.output<typeof inboxInput>['options']>>,
];
