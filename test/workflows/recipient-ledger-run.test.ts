/**
 * workflows/recipient-ledger/run.ts: a ledger's whole state is one object, handed whole to
 * continue-as-new. A field added to that state and not carried (left out of `carry`, kept on the run
 * instead of in the ledger's state, or missing from the schema the next run parses) would forget a
 * person's income or reservations, and let payouts past the cap: these tests fail.
 */
import {
  ledgerStateSchema,
  parseRecipientInput,
  type LedgerState,
} from '../../workflows/recipient-ledger/contract';
import { IncomeLedger } from '../../workflows/recipient-ledger/ledger';
import { RecipientLedgerRun } from '../../workflows/recipient-ledger/run';

/** Every field of the state set, none at its default. */
const FULL: LedgerState = {
  years: {
    '2026': {
      capIncome: 150_000,
      income: 250_000,
      byMonth: { '2026-03': 250_000 },
      paid: {
        a: { amount: 150_000, selfEmployed: true, month: '2026-03', at: '2026-03-01T10:00:00.000Z' },
        b: {
          amount: 100_000,
          selfEmployed: false,
          month: '2026-03',
          at: '2026-03-02T10:00:00.000Z',
          returned: true,
        },
      },
    },
  },
  reservations: {
    c: {
      reference: 'c',
      workflowId: 'payout-c',
      runId: '0190c0de-0000-7000-8000-000000000001',
      amount: 50_000,
      selfEmployed: true,
      year: 2026,
      month: '2026-03',
      at: '2026-03-03T10:00:00.000Z',
    },
  },
  refused: [
    {
      reference: 'd',
      workflowId: 'payout-d',
      amount: 1,
      at: '2026-03-04T10:00:00.000Z',
      why: 'no_run',
      reason: 'the reservation names no payout run',
    },
  ],
  link: {
    requestId: 'req-1',
    url: 'https://bank.example/link',
    sentAt: '2026-03-05T10:00:00.000Z',
    expiresAt: '2026-03-06T10:00:00.000Z',
    requestedBy: 'preparer',
  },
  linkRequests: 2,
};

/**
 * What the run may keep beside the ledger: its work in flight and its handover (neither outlives the run),
 * and when to hand over, which carry() passes on (checked below).
 */
const NOT_STATE = [
  'ledger',
  'ready',
  'settling',
  'linking',
  'proofs',
  'handingOver',
  'reservedThisRun',
  'continueAfterReservations',
];

describe('the recipient ledger run', () => {
  it('the fixture sets every field the state schema names', () => {
    expect(Object.keys(FULL).sort()).toEqual(Object.keys(ledgerStateSchema().shape).sort());
  });

  it('carries every field of its state to the next run, unchanged, and the next run takes it', () => {
    const run = new RecipientLedgerRun(structuredClone(FULL));
    const next = run.carry();
    expect(ledgerStateSchema().parse(next.state)).toStrictEqual(FULL);
    const taken = parseRecipientInput(structuredClone(next));
    expect(taken.ok && taken.value.state).toStrictEqual(FULL);
    // When to hand over is carried too (a test's low threshold holds in every run).
    const every = new RecipientLedgerRun(structuredClone(FULL), 7).carry();
    expect(parseRecipientInput(structuredClone(every))).toMatchObject({
      ok: true,
      value: { continueAfterReservations: 7 },
    });
  });

  it('keeps nothing on the run that is not its ledger or work in flight', () => {
    const run = new RecipientLedgerRun(undefined);
    expect(Object.keys(run).filter((k) => !NOT_STATE.includes(k))).toEqual([]);
    expect(Object.keys(run)).toContain('ledger');
  });

  it("the ledger's rules write nothing the state schema does not name", () => {
    const ledger = new IncomeLedger();
    const limits = { yearlyCapKopecks: 1_000_000 };
    const ask = { workflowId: 'payout-x', amount: 100_000, selfEmployed: true, limits };
    ledger.reserve({
      ...ask,
      reference: 'x',
      runId: '0190c0de-0000-7000-8000-000000000002',
      at: '2026-03-01T10:00:00.000Z',
    });
    ledger.reserve({ ...ask, reference: 'y', at: '2026-03-02T10:00:00.000Z' });
    ledger.settle('x', 'paid');
    ledger.settle('x', 'returned');
    ledger.refuse({ ...FULL.refused![0]! });
    expect(ledgerStateSchema().parse(ledger.state)).toStrictEqual(ledger.state);
  });
});
