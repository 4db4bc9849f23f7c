/**
 * A payout run's whole state as one plain object, and what of it continue-as-new carries. The carry is
 * the state minus the keys listed in THIS_RUN_ONLY (each says why), plus the tracker's snapshot: a field
 * added to the state is carried unless it is listed, and test/workflows/payout-state.test.ts fails when
 * the state, its schema and the carry disagree on a key. Pure and workflow-safe.
 */
import { z } from 'zod';
import type { PayoutAuthorization, PolicyView } from '../shared/approval-contract';
import type { CancelCommand } from '../shared/operator-contract';
import type { TaxpayerVerdict } from '../taxpayer/contract';
import type { SignedWebhook } from '../shared/bank-event-contract';
import type { SessionPhase } from '../shared/bank-session';
import type { PayoutStatus } from './contract';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** Written by the payout's own code only (never taken from anyone else): the shape is checked, not every rule. */
const plain = <T>() => z.custom<T>(isPlainObject, { error: 'expected an object' });

/** What a run knows. Optional keys are present (undefined) in a fresh state, so its keys are all keys. */
export function payoutRunStateSchema() {
  return z.object({
    /** The step the run stopped in: waiting for ready_to_confirm (and approval), for the result, for credit. */
    step: z.enum(['confirm', 'result', 'credit']),
    confirmDeadline: z.number(),
    creditUntil: z.number().optional(),
    verdict: plain<TaxpayerVerdict>().optional(),
    cancelRequest: plain<CancelCommand>().optional(),
    /** A refusing verdict that came after the session was created: it is cancelled, the row rejected. */
    lateRefusal: z.object({ code: z.string(), reason: z.string() }).optional(),
    confirmSent: z.boolean(),
    /** The policy an approval of this run is checked against: set when the worker says one is needed. */
    approvalPolicy: plain<PolicyView>().optional(),
    /** A batch waiting for this payout without being its parent asks to be told when it settles. */
    reportTo: z.string().optional(),
    told: z.boolean(),
    /** How many runs of this payout came before this one (each continued as new). */
    continuations: z.number().int().nonnegative(),
    /** Why this run may not pay at all (not in an approved batch's file): it ends rejected, no session. */
    refusal: plain<Extract<PayoutAuthorization, { kind: 'refused' }>>().optional(),
    /** A taxpayerVerdict signal came: read the verdict from the taxpayer workflow (the signal is not believed). */
    verdictWake: z.boolean(),
    /**
     * An allowing verdict a signal claimed: the create checks it with the taxpayer workflow before it calls
     * the bank (activities/bank.ts), so the usual answer costs no event of its own.
     */
    allowClaim: plain<TaxpayerVerdict>().optional(),
    /** This run reads every signalled verdict back (it met a refusing one under VERDICT_FROM_OWN_CHECK). */
    readsVerdicts: z.boolean(),
    /** This run is continuing as new: it tells no batch (the next run will). */
    continuing: z.boolean(),
    /** False in a run recorded before continue-as-new existed: it never continues. */
    mayContinue: z.boolean(),
    /** The history length of the workflow task that created the session (the same until that task completes). */
    createdInTask: z.number().optional(),
  });
}

export type PayoutRunData = z.infer<ReturnType<typeof payoutRunStateSchema>>;

/**
 * Keys the next run starts afresh, and why (the carry's format is the one recorded runs wrote, so a key
 * moves between the lists only with a patch or a proof that in-flight runs still continue).
 */
export const THIS_RUN_ONLY = [
  'refusal', // a refused run ends at once, with no session: it never continues
  'verdictWake', // a wake-up of this run's wait; the next run asks again if it has no verdict
  'allowClaim', // a signal's claim, checked only by this run's create (a continued run has a session)
  'readsVerdicts', // carried runs never went so (kept as recorded runs did; see the report of issue 36)
  'continuing', // true only in the run that hands over
  'mayContinue', // decided by each run's own patch marker
  'createdInTask', // a history length of this run's own history
] as const satisfies readonly (keyof PayoutRunData)[];

type ThisRunOnly = (typeof THIS_RUN_ONLY)[number];

/** A tracker's whole state, as a payout carries it into its own continue-as-new. */
export interface TrackerSnapshot {
  status: PayoutStatus;
  phase: SessionPhase;
  nudged: boolean;
  unchecked: SignedWebhook[];
  credited?: { event: string; eventDate: string };
  returnedAt?: string;
  seenEvents: string[];
  notesDropped: number;
  published: [string, string | number][];
  stateShown: boolean;
}

const trackerSnapshot = () =>
  plain<TrackerSnapshot>().refine((s) => isPlainObject(s.status), {
    error: 'expected a tracker with a status',
  });

/**
 * What a payout carries into its own continue-as-new when its history nears Temporal's limits (a flood of
 * signals): where it was and everything it knew, so the next run goes on from there and never creates a
 * second session. Taken only from the workflow's own continue-as-new, never from a hand-started run.
 */
export function payoutCarrySchema() {
  const omitted = Object.fromEntries(THIS_RUN_ONLY.map((k) => [k, true])) as { [K in ThisRunOnly]: true };
  return payoutRunStateSchema().omit(omitted).extend({ tracker: trackerSnapshot() });
}

export type PayoutCarry = z.infer<ReturnType<typeof payoutCarrySchema>>;

/** Every key of T required, optional ones allowed to be undefined: a literal of it names every key. */
export type EveryKey<T> = { [K in keyof Required<T>]: K extends keyof T ? T[K] : never };

/** A first run's state. Every key is written out (EveryKey), so a key added to the schema is added here. */
export function freshPayoutState(): EveryKey<PayoutRunData> {
  return {
    step: 'confirm',
    confirmDeadline: 0,
    creditUntil: undefined,
    verdict: undefined,
    cancelRequest: undefined,
    lateRefusal: undefined,
    confirmSent: false,
    approvalPolicy: undefined,
    reportTo: undefined,
    told: false,
    continuations: 0,
    refusal: undefined,
    verdictWake: false,
    allowClaim: undefined,
    readsVerdicts: false,
    continuing: false,
    mayContinue: true,
    createdInTask: undefined,
  };
}

/** The carry of a run about to continue as new: its state without THIS_RUN_ONLY, and one more run counted. */
export function carryOf(state: PayoutRunData, tracker: TrackerSnapshot): PayoutCarry {
  const carried: Record<string, unknown> = { ...state };
  for (const key of THIS_RUN_ONLY) delete carried[key];
  return {
    ...(carried as Omit<PayoutRunData, ThisRunOnly>),
    continuations: state.continuations + 1,
    tracker,
  };
}

/** The state a continued run starts with: what was carried, and a fresh THIS_RUN_ONLY. */
export function stateFromCarry(carry: PayoutCarry): PayoutRunData {
  const { tracker: _tracker, ...carried } = carry;
  return { ...freshPayoutState(), ...carried };
}

/** Checks a carry on the way in: anything but the payout's own continue-as-new is refused by its caller. */
export function parsePayoutCarry(
  raw: unknown,
): { ok: true; value: PayoutCarry } | { ok: false; message: string } {
  const r = payoutCarrySchema().safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, message: `carry.${issue.path.map(String).join('.')}: ${issue.message}` };
}

// Type-level: every state key is either carried or listed as this run's only, and the carry is nothing else.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type CarryCoversState = Same<keyof PayoutCarry, Exclude<keyof PayoutRunData, ThisRunOnly> | 'tracker'>;
const carryCoversState: CarryCoversState = true;
void carryCoversState;
