/**
 * Checks every input a payrun workflow can be started with and every operator command or bank event
 * it can be signalled with. Anyone who reaches Temporal (UI, `temporal workflow start/signal`, a script)
 * can send arbitrary JSON, so handlers parse first and act only on what comes back `ok`.
 *
 * Workflow-safe: pure and deterministic, no Node APIs, no I/O (the workflow bundle includes it).
 * A payout's or a batch's input refuses keys it does not know, naming them (issue 24: a dropped key
 * was a CSV column that silently never reached the bank); the payout itself is src/domain's schema.
 * Messages name the field path and the rule; values of personal fields (card, account, phone, tax
 * number, names, e-mail, free text) are never echoed, only what kind of value came.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import {
  chars,
  field,
  isBatchId,
  isPayoutWorkflowId,
  kopecksSchema,
  nonBlank,
  payoutRequestSchema,
  referenceSchema,
  strictObject,
  text,
  type PayoutMethod,
  type PayoutRequest,
} from '../src/domain';
import { isPersonId } from './shared/approval';
import {
  MAX_SIGNATURE_BYTES,
  MAX_SIGNED_WEBHOOK_BYTES,
  type BankEventSignal,
  type BankEventType,
} from './shared/bank-event-contract';
import type { BatchOptions, BatchWorkflowInput } from './batch/contract';
import type { WebhookInboxInput, WebhookInboxOptions } from './contracts/inbox';
import type { PayoutInput, PayoutOptions } from './payout/contract';
import type { RefundInput } from './contracts/refund';
import {
  verdictRefusal,
  type TaxpayerCheckRequest,
  type TaxpayerVerdict,
  type TaxpayerWorkflowInput,
} from './taxpayer/contract';
import type { WebhookInboxState } from './webhook-inbox-state';

export type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/** What a workflow throws for input it refuses: retrying the same input can never succeed. */
export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'invalid_input', message, nonRetryable: true });
}

// ---------------------------------------------------------------- rules

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Control, format, private-use and unassigned characters, and line/paragraph separators. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/**
 * The bank's confirm window and payrun's default margin (workflows/payout/workflow.ts DEFAULTS): a margin at
 * least as long as the window would expire every approval before it could come.
 */
const BANK_CONFIRM_WINDOW_MS = 4 * HOUR;
const DEFAULT_CONFIRM_SAFETY_MARGIN_MS = 15 * MINUTE;

/** Marks a cross-field issue whose message already names the values it compared. */
const SAYS_WHAT_IT_SAW = 'saysWhatItSaw';

const isString = (v: unknown): v is string => typeof v === 'string';
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const base64 = (maxBytes: number, what: string) => {
  const max = 4 * Math.ceil(maxBytes / 3);
  return field<string>(
    `expected ${what}: Base64 of at most ${max} characters`,
    (v) => isString(v) && v.length <= max && BASE64.test(v),
  );
};
const digits = (pattern: RegExp, rule: string) =>
  field<string>(`expected ${rule}, as a string`, (v) => isString(v) && pattern.test(v));
const bool = () => field<boolean>('expected true or false', (v) => typeof v === 'boolean');
const kopecks = kopecksSchema;
/** A time span in milliseconds between min and max, written as a plain JSON number. */
const millis = (min: number, max: number) =>
  field<number>(
    `expected milliseconds from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max,
  );
const count = (min: number, max: number, what = 'a whole number') =>
  field<number>(
    `expected ${what} from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
  );
const tally = () =>
  field<number>('expected a whole number, 0 or more', (v) => Number.isSafeInteger(v) && (v as number) >= 0);
const object = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.object(shape, { error: 'expected an object' });

const reference = referenceSchema;

// ---------------------------------------------------------------- payout

const payoutRequest = payoutRequestSchema();

const payoutOptions = strictObject({
  requireApproval: bool().optional(),
  awaitCreditConfirmation: bool().optional(),
  creditConfirmationBusinessDays: count(0, 30, 'a whole number of business days').optional(),
  creditConfirmationWindowMs: millis(0, 60 * DAY).optional(),
  // Polls double from here; below 100 ms the poll loop would hammer the bank.
  pollAfterMs: millis(100, HOUR).optional(),
  confirmWindowMs: millis(SECOND, BANK_CONFIRM_WINDOW_MS).optional(),
  confirmSafetyMarginMs: millis(0, BANK_CONFIRM_WINDOW_MS).optional(),
  taxpayerCheckMaxAgeMs: millis(0, 7 * DAY).optional(),
  reconcileOnly: bool().optional(),
}).superRefine((o, ctx) => {
  const window = o.confirmWindowMs ?? BANK_CONFIRM_WINDOW_MS;
  const margin = o.confirmSafetyMarginMs ?? DEFAULT_CONFIRM_SAFETY_MARGIN_MS;
  if (margin >= window) {
    ctx.addIssue({
      code: 'custom',
      path: [o.confirmSafetyMarginMs !== undefined ? 'confirmSafetyMarginMs' : 'confirmWindowMs'],
      message: `expected confirmSafetyMarginMs (${margin}) to be less than confirmWindowMs (${window}), or no approval could ever arrive in time`,
      params: { [SAYS_WHAT_IT_SAW]: true },
    });
  }
});

const batchId = () =>
  field<string>('expected batch-<16 hex digits>, optionally followed by -retry-<n>', (v) =>
    isString(v) ? isBatchId(v) : false,
  );

const payoutInput = strictObject({
  request: payoutRequest,
  batchId: batchId().optional(),
  options: payoutOptions.optional(),
});

// ---------------------------------------------------------------- refund

const refundInput = object({
  reference: reference(),
  sessionId: nonBlank(128, 'a session id'),
  amount: kopecks().optional(),
  pollAfterMs: millis(100, HOUR).optional(),
});

// ---------------------------------------------------------------- batch

const batchOptions = strictObject({
  requireApproval: bool().optional(),
  maxInFlight: count(1, 500).optional(),
  checkFunds: bool().optional(),
  fundsRecheckMs: millis(100, DAY).optional(),
  // Temporal refuses a history past 51 200 events; continuing as new well before keeps replays fast.
  continueAsNewAfterEvents: count(10, 40_000).optional(),
  payout: payoutOptions.optional(),
});

const personIdField = () => field<string>('expected a person id of the policy', isPersonId);

/** Written by the batch itself on continue-as-new: its top level is checked, the rest passes untouched. */
const batchCarry = z.looseObject(
  {
    meta: z.looseObject({}, { error: 'expected an object' }),
    nextChunk: tally(),
    dispatched: tally(),
    dispatchedKopecks: tally(),
    tally: z.looseObject({}, { error: 'expected an object' }),
    inFlight: z.array(z.unknown(), { error: 'expected a list' }),
    fundsOk: bool(),
    paused: bool(),
    runs: tally(),
    submittedBy: z.array(personIdField(), { error: 'expected a list' }).optional(),
  },
  { error: 'expected an object' },
);

const batchInput = strictObject({
  batchId: batchId(),
  options: batchOptions.optional(),
  submitter: personIdField().optional(),
  carry: batchCarry.optional(),
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

// ---------------------------------------------------------------- bank events

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

// ---------------------------------------------------------------- taxpayer

/** At most this many payouts wait on one tax number's check; more is a flood, not a batch. */
export const TAXPAYER_WAITING_MAX = 1_000;
const isoTime = () =>
  field<string>(
    'expected an ISO 8601 time',
    (v) => isString(v) && v.length <= 64 && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)),
  );
const taxpayerVerdict = object({
  isProfessionalIncomeTaxpayer: bool(),
  isLinked: bool(),
  checkedAt: isoTime(),
  error: text(64, 'an error code').optional(),
});
const taxpayerRequest = object({
  replyTo: field<string>('expected payout-<reference>', (v) => isString(v) && isPayoutWorkflowId(v)),
  maxAgeMs: millis(0, 7 * DAY),
});
const taxpayerInput = object({
  taxReference: digits(/^(\d{10}|\d{12})$/, '10 or 12 digits'),
  cached: taxpayerVerdict.optional(),
  lastCheckAt: field<number>('expected a time in milliseconds', (v) => Number.isSafeInteger(v)).optional(),
  waiting: z
    .array(taxpayerRequest, { error: 'expected a list' })
    .max(TAXPAYER_WAITING_MAX, { error: `expected at most ${TAXPAYER_WAITING_MAX} waiting requests` })
    .optional(),
});

// ---------------------------------------------------------------- connectivity check, inbox signals

const connectivityInput = object({
  awaitAcknowledgement: bool(),
  acknowledgementTimeoutMs: millis(0, HOUR).optional(),
});

// ---------------------------------------------------------------- operator commands

const operator = field<string>(
  'expected the name of who decided: 1–128 printable characters',
  (v) => isString(v) && v.trim() !== '' && chars(v.trim()) <= 128 && !UNPRINTABLE.test(v.trim()),
).transform((v) => v.trim());
const remark = text(500);

const approval = object({ by: operator, note: remark.optional() });
const cancellation = object({ by: operator, reason: remark.optional() });
const pauseResume = object({ by: operator, note: remark.optional() });
const acknowledgement = object({ by: operator });
const orphanDismissal = object({ id: nonBlank(256, 'an event id'), by: operator });

// ---------------------------------------------------------------- messages

/**
 * Paths whose values may be shown in a message. Everything else (recipient, method details,
 * free text, the bank's documents, operators' own words) is described by kind and length only.
 */
const ECHOABLE = new Set([
  'reference',
  'request.reference',
  'request.amount',
  'request.currency',
  'request.selfEmployed',
  'request.method.type',
  'amount',
  'pollAfterMs',
  'batchId',
  'sessionId',
  'id',
  'type',
  'receivedAt',
  'replyTo',
  'maxAgeMs',
  'checkedAt',
  'awaitAcknowledgement',
  'acknowledgementTimeoutMs',
]);
const isEchoable = (path: string): boolean =>
  ECHOABLE.has(path) || /^(options|carry|state)(\.|$)/.test(path) || /^lateFor\.\d+$/.test(path);

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `text of ${chars(value)} characters`;
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true or false';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

function shown(value: unknown): string {
  if (typeof value === 'string') {
    const cut = chars(value) > 40 ? `${[...value].slice(0, 40).join('')}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return kindOf(value);
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key))
      return { found: false, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value };
}

const MAX_ISSUES = 10;

/** A key nobody defined: named (cut to 40 characters), never its value. */
function unknownKeys(path: string, keys: readonly string[]): string {
  return keys
    .map(
      (key) =>
        `${path ? `${path}.` : ''}${shown(key).slice(1, -1)}: expected no such field (unknown fields are refused, not dropped)`,
    )
    .join('; ');
}

function describe(error: z.ZodError, raw: unknown): string {
  const parts = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return unknownKeys(path, issue.keys);
    const { found, value } = valueAt(raw, issue.path);
    let got: string;
    if (issue.code === 'custom' && issue.params?.[SAYS_WHAT_IT_SAW]) got = '';
    else if (!found || value === undefined) got = path === '' ? ', got nothing' : ', but it is missing';
    else got = `, got ${isEchoable(path) ? shown(value) : kindOf(value)}`;
    return `${path || 'input'}: ${issue.message}${got}`;
  });
  const more = error.issues.length - MAX_ISSUES;
  return parts.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function parseWith<T>(schema: z.ZodType, raw: unknown): Result<T> {
  const r = schema.safeParse(raw);
  return r.success ? { ok: true, value: r.data as T } : { ok: false, message: describe(r.error, raw) };
}

// ---------------------------------------------------------------- the parsers

export function parsePayoutInput(raw: unknown): Result<PayoutInput> {
  return parseWith<PayoutInput>(payoutInput, raw);
}

export function parseRefundInput(raw: unknown): Result<RefundInput> {
  return parseWith<RefundInput>(refundInput, raw);
}

/**
 * `continued`: this run was started by continue-as-new (workflowInfo().continuedFromExecutionRunId is
 * set). Only then may the input carry `carry`: a first run given one would skip loading the batch,
 * its approval and its funds check on someone's say-so.
 */
export function parseBatchWorkflowInput(
  raw: unknown,
  context: { continued: boolean },
): Result<BatchWorkflowInput> {
  const r = parseWith<BatchWorkflowInput>(batchInput, raw);
  if (r.ok && r.value.carry !== undefined && !context.continued) {
    return {
      ok: false,
      message:
        'carry: expected no carry when starting a batch (only the batch itself sets it on continue-as-new)',
    };
  }
  return r;
}

/** Started with no input (signalWithStart from the ingress passes `{}`), the inbox runs on its defaults. */
export function parseWebhookInboxInput(raw: unknown): Result<WebhookInboxInput> {
  return parseWith<WebhookInboxInput>(inboxInput, raw ?? {});
}

export function parseBankEvent(raw: unknown): Result<BankEventSignal> {
  return parseWith<BankEventSignal>(bankEvent, raw);
}

export function parseApproval(raw: unknown): Result<{ by: string; note?: string }> {
  return parseWith(approval, raw);
}

export function parseCancellation(raw: unknown): Result<{ by: string; reason?: string }> {
  return parseWith(cancellation, raw);
}

export function parsePauseResume(raw: unknown): Result<{ by: string; note?: string }> {
  return parseWith(pauseResume, raw);
}

/** A verdict handed to a new taxpayer run (a dry run's, issue 25) is reused for at most this long. */
export const SEEDED_VERDICT_MAX_AGE_MS = DAY;

/**
 * A verdict in the input is believed only as far as it cannot hurt. Anyone may start this workflow, so
 * a hand-started run (not `continued`) may carry only a verdict that allows paying, checked at most a day
 * ago: a forged "yes" gets no payout through (the bank checks the tax number again when the fiscalized
 * payout is created), while a forged "no" would reject every row of that tax number — that is refused.
 * Any run refuses a verdict or last check dated in the future (it would stay "fresh", or hold every
 * check back, for ever).
 */
export function parseTaxpayerInput(
  raw: unknown,
  context: { continued: boolean; now: number },
): Result<TaxpayerWorkflowInput> {
  const r = parseWith<TaxpayerWorkflowInput>(taxpayerInput, raw);
  if (!r.ok) return r;
  const { cached, lastCheckAt, waiting } = r.value;
  const fail = (message: string): Result<TaxpayerWorkflowInput> => ({ ok: false, message });
  if (lastCheckAt !== undefined && lastCheckAt > context.now + CLOCK_SKEW_MS)
    return fail(`lastCheckAt: expected a time not in the future, got ${new Date(lastCheckAt).toISOString()}`);
  if (!cached) return r;
  const age = verdictAgeMs(cached, context.now);
  if (age === undefined)
    return fail(`cached.checkedAt: expected a time not in the future, got ${cached.checkedAt}`);
  if (!context.continued) {
    if (verdictRefusal(cached))
      return fail(
        'cached: a new taxpayer check takes no refusing verdict from its input (only its own check refuses)',
      );
    if (age > SEEDED_VERDICT_MAX_AGE_MS)
      return fail(`cached.checkedAt: expected a check within the last 24 hours, got ${cached.checkedAt}`);
    if (waiting !== undefined)
      return fail('waiting: expected no waiting requests when starting a taxpayer check');
  }
  return r;
}

export function parseTaxpayerCheckRequest(raw: unknown): Result<TaxpayerCheckRequest> {
  return parseWith<TaxpayerCheckRequest>(taxpayerRequest, raw);
}

export function parseTaxpayerVerdict(raw: unknown): Result<TaxpayerVerdict> {
  return parseWith<TaxpayerVerdict>(taxpayerVerdict, raw);
}

/** Clocks of workers and server differ a little; a verdict further ahead than this is forged or broken. */
const CLOCK_SKEW_MS = 60_000;
/** How old a verdict is at `now`, or undefined when it claims a time in the future. */
export function verdictAgeMs(v: TaxpayerVerdict, now: number): number | undefined {
  const age = now - Date.parse(v.checkedAt);
  return Number.isNaN(age) || age < -CLOCK_SKEW_MS ? undefined : Math.max(0, age);
}

export function parseConnectivityInput(
  raw: unknown,
): Result<{ awaitAcknowledgement: boolean; acknowledgementTimeoutMs?: number }> {
  return parseWith(connectivityInput, raw);
}

export function parseAcknowledgement(raw: unknown): Result<{ by: string }> {
  return parseWith(acknowledgement, raw);
}

export function parseOrphanDismissal(raw: unknown): Result<{ id: string; by: string }> {
  return parseWith(orphanDismissal, raw);
}

// The schemas' outputs must stay assignable to the shapes the workflows declare, and every key those
// shapes declare must have a rule here (a new option would otherwise be silently stripped). Type-only.
type Fits<A extends B, B> = A;
type Keys<S extends z.ZodType> = keyof NonNullable<z.output<S>>;
type _SchemasFitTheirTypes = [
  Fits<z.output<typeof payoutRequest>, PayoutRequest>,
  Fits<keyof PayoutRequest, Keys<typeof payoutRequest>>,
  Fits<keyof PayoutRequest['recipient'], keyof z.output<typeof payoutRequest>['recipient']>,
  Fits<z.output<typeof payoutRequest>['method'], PayoutMethod>,
  Fits<z.output<typeof payoutOptions>, PayoutOptions>,
  Fits<keyof PayoutOptions, Keys<typeof payoutOptions>>,
  Fits<z.output<typeof payoutInput>, PayoutInput>,
  Fits<keyof PayoutInput, Keys<typeof payoutInput>>,
  Fits<z.output<typeof refundInput>, RefundInput>,
  Fits<keyof RefundInput, Keys<typeof refundInput>>,
  Fits<z.output<typeof batchOptions>, BatchOptions>,
  Fits<keyof BatchOptions, Keys<typeof batchOptions>>,
  Fits<z.output<typeof batchInput>, Omit<BatchWorkflowInput, 'carry'> & { carry?: object }>,
  Fits<keyof BatchWorkflowInput, Keys<typeof batchInput>>,
  Fits<z.output<typeof inboxInput>, WebhookInboxInput>,
  Fits<keyof WebhookInboxInput, Keys<typeof inboxInput>>,
  Fits<NonNullable<z.output<typeof inboxInput>['options']>, WebhookInboxOptions>,
  Fits<keyof WebhookInboxOptions, keyof NonNullable<z.output<typeof inboxInput>['options']>>,
  Fits<z.output<typeof bankEvent>, Omit<BankEventSignal, 'session'> & { session?: { id: string } }>,
  Fits<keyof BankEventSignal, Keys<typeof bankEvent>>,
  Fits<z.output<typeof taxpayerVerdict>, TaxpayerVerdict>,
  Fits<keyof TaxpayerVerdict, Keys<typeof taxpayerVerdict>>,
  Fits<z.output<typeof taxpayerInput>, TaxpayerWorkflowInput>,
  Fits<keyof TaxpayerWorkflowInput, Keys<typeof taxpayerInput>>,
];
