/**
 * workflows/payout/state.ts: a payout's whole state is one object, and continue-as-new carries all of it
 * but the keys it names as this run's own. A field added to the state and not carried (or carried and not
 * in the schema the next run parses it with) must fail here, not in a run that continued as new.
 */
import {
  carryOf,
  freshPayoutState,
  parsePayoutCarry,
  payoutCarrySchema,
  payoutRunStateSchema,
  stateFromCarry,
  THIS_RUN_ONLY,
  type PayoutCarry,
  type PayoutRunData,
  type TrackerSnapshot,
} from '../../workflows/payout/state';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Type level: the fresh state names every key of the state; the carry is the state minus THIS_RUN_ONLY.
const freshNamesEveryKey: Same<keyof ReturnType<typeof freshPayoutState>, keyof Required<PayoutRunData>> =
  true;
const carryIsStateMinusThisRun: Same<
  keyof PayoutCarry,
  Exclude<keyof PayoutRunData, (typeof THIS_RUN_ONLY)[number]> | 'tracker'
> = true;

const tracker = {
  status: { state: 'awaiting_confirmation' },
  phase: 'ready_to_confirm',
} as unknown as TrackerSnapshot;

/** Every key set, none to its fresh value: a key the carry drops or the schema strips shows in the round trip. */
const everySet: Required<PayoutRunData> = {
  step: 'credit',
  confirmDeadline: 1_700_000_000_000,
  creditUntil: 1_700_000_100_000,
  verdict: { isProfessionalIncomeTaxpayer: true, isLinked: true, checkedAt: '2026-11-26T10:00:00.000Z' },
  cancelRequest: { by: 'anna', reason: 'wrong amount' },
  lateRefusal: { code: 'not_linked', reason: 'the recipient unlinked payrun' },
  confirmSent: true,
  approvalPolicy: { people: [] } as unknown as Required<PayoutRunData>['approvalPolicy'],
  reportTo: 'batch-0123456789abcdef',
  told: true,
  continuations: 2,
  refusal: { kind: 'refused', code: 'not_approved', reason: 'not in an approved file' },
  verdictWake: true,
  allowClaim: { isProfessionalIncomeTaxpayer: true, isLinked: true, checkedAt: '2026-11-26T09:00:00.000Z' },
  readsVerdicts: true,
  continuing: true,
  mayContinue: false,
  createdInTask: 42,
};

const sorted = (keys: Iterable<string>) => [...keys].sort();

describe('the payout run state', () => {
  it('holds the type-level checks', () => {
    expect([freshNamesEveryKey, carryIsStateMinusThisRun]).toEqual([true, true]);
  });

  it('has the same keys in its schema, its fresh value and the all-set sample', () => {
    const schemaKeys = sorted(Object.keys(payoutRunStateSchema().shape));
    expect(sorted(Object.keys(freshPayoutState()))).toEqual(schemaKeys);
    expect(sorted(Object.keys(everySet))).toEqual(schemaKeys);
    expect(payoutRunStateSchema().safeParse(freshPayoutState()).success).toBe(true);
  });

  it('lists only state keys as this run only', () => {
    const stateKeys = Object.keys(payoutRunStateSchema().shape);
    expect(THIS_RUN_ONLY.filter((k) => !stateKeys.includes(k))).toEqual([]);
    expect(new Set(THIS_RUN_ONLY).size).toBe(THIS_RUN_ONLY.length);
  });

  it('carries every key but THIS_RUN_ONLY, and the carry schema has exactly those keys', () => {
    const carried = sorted(
      [...Object.keys(payoutRunStateSchema().shape), 'tracker'].filter(
        (k) => !(THIS_RUN_ONLY as readonly string[]).includes(k),
      ),
    );
    expect(sorted(Object.keys(carryOf(everySet, tracker)))).toEqual(carried);
    expect(sorted(Object.keys(payoutCarrySchema().shape))).toEqual(carried);
  });

  it('comes back whole from its carry, parsed as the next run parses it, with this run’s keys fresh', () => {
    const parsed = parsePayoutCarry(JSON.parse(JSON.stringify(carryOf(everySet, tracker))));
    if (!parsed.ok) throw new Error(parsed.message);
    const next = stateFromCarry(parsed.value);
    const fresh = freshPayoutState();
    for (const key of Object.keys(everySet) as (keyof PayoutRunData)[]) {
      const expected = (THIS_RUN_ONLY as readonly string[]).includes(key)
        ? fresh[key]
        : key === 'continuations'
          ? everySet.continuations + 1
          : everySet[key];
      expect({ key, value: next[key] }).toEqual({ key, value: expected });
    }
  });

  it('refuses a carry without the payout’s own shape', () => {
    const carry = carryOf(freshPayoutState(), tracker) as Record<string, unknown>;
    expect(parsePayoutCarry({ ...carry, step: 'pay' }).ok).toBe(false);
    expect(parsePayoutCarry({ ...carry, tracker: 'x' }).ok).toBe(false);
    const { confirmSent: _, ...withoutConfirmSent } = carry;
    expect(parsePayoutCarry(withoutConfirmSent)).toMatchObject({ ok: false, message: /confirmSent/ });
  });
});
