import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { field, isPayoutWorkflowId, text } from '../../src/domain';
import { bool, DAY, digits, isString, millis, object, parseWith, type Result } from '../shared/parse';

// The per-tax-number taxpayer workflow's contract: the verdict, the request and answer signals, the query.

/**
 * One taxpayer workflow per tax number, by a keyed hash of it (activities/taxpayer.ts computes the HMAC:
 * a tax number never shows in an id).
 */
export const taxpayerWorkflowId = (taxNumberHash: string) => `taxpayer-${taxNumberHash.slice(0, 24)}`;

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
  /** Set when the bank answered `error` for the check. */
  error: text(64, 'an error code').optional(),
});

/** A payout asks the per-tax-number workflow for a verdict; the answer comes back as a signal. */
const taxpayerRequest = object({
  /** The payout's workflow id (payout-<reference>). */
  replyTo: field<string>('expected payout-<reference>', (v) => isString(v) && isPayoutWorkflowId(v)),
  maxAgeMs: millis(0, 7 * DAY),
});

/** The taxpayer workflow's input: a tax number; the rest only its own continue-as-new sets. */
const taxpayerInput = object({
  taxReference: digits(/^(\d{10}|\d{12})$/, '10 or 12 digits'),
  cached: taxpayerVerdict.optional(),
  lastCheckAt: field<number>('expected a time in milliseconds', (v) => Number.isSafeInteger(v)).optional(),
  waiting: z
    .array(taxpayerRequest, { error: 'expected a list' })
    .max(TAXPAYER_WAITING_MAX, { error: `expected at most ${TAXPAYER_WAITING_MAX} waiting requests` })
    .optional(),
});

export type TaxpayerVerdict = z.infer<typeof taxpayerVerdict>;
export type TaxpayerCheckRequest = z.infer<typeof taxpayerRequest>;
export type TaxpayerWorkflowInput = z.infer<typeof taxpayerInput>;

/**
 * Why a verdict forbids paying its recipient (undefined: it allows it). One rule for the payout
 * workflow, which refuses the row, and for the local activity that creates the session at once
 * when the verdict it read allows it (activities/payout-runs.ts).
 */
export function verdictRefusal(v: TaxpayerVerdict): { code: string; reason: string } | undefined {
  if (v.error) return { code: v.error, reason: `the tax service check did not complete (${v.error})` };
  if (!v.isProfessionalIncomeTaxpayer)
    return { code: 'not_self_employed', reason: 'the recipient is not a professional income taxpayer' };
  if (!v.isLinked)
    return {
      code: 'not_linked',
      reason: 'the recipient has not linked payrun’s partner in the tax service',
    };
  return undefined;
}

export const taxpayerCheckRequestSignal = defineSignal<[TaxpayerCheckRequest]>('taxpayerCheckRequest');

export const taxpayerVerdictSignal = defineSignal<[TaxpayerVerdict]>('taxpayerVerdict');

/** The verdict the per-tax-number workflow holds (undefined before its first check). */
export const taxpayerVerdictQuery = defineQuery<TaxpayerVerdict | undefined>('verdict');

/**
 * The failure type of a create asked to confirm an allowing verdict that the taxpayer workflow does not
 * hold (a forged or early taxpayerVerdict signal): no session was created, the payout reads the verdict.
 */
export const VERDICT_UNCONFIRMED = 'taxpayer_verdict_unconfirmed';

// ---------------------------------------------------------------- parsing

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
