import {
  countsFrom,
  judgePayoutRun,
  PAYOUT_WORKFLOW_TYPE,
  type PayoutRunFacts,
} from '../../src/recipient/proof';
import { moscowYearMonth } from '../../workflows/recipient-ledger/ledger';
import type { ProvePayoutAsk } from '../../workflows/recipient-ledger/contract';

const RUN = '01a21888-e04b-7f18-86f1-76ce37098ac0';
const INN = '500100732259';
const ask: ProvePayoutAsk = {
  reference: 'row-1',
  workflowId: 'payout-row-1',
  runId: RUN,
  amount: 900_000_00,
  selfEmployed: true,
};
const input = (overrides: Record<string, unknown> = {}, options?: Record<string, unknown>) => ({
  request: {
    reference: 'row-1',
    recipient: { lastName: 'Иванова', firstName: 'Анна', taxReference: INN },
    method: { type: 'card', cardNumber: '4111111111111111' },
    amount: 900_000_00,
    currency: 'rub',
    serviceName: 'Вёрстка',
    selfEmployed: true,
    ...overrides,
  },
  ...(options ? { options } : {}),
});
const run = (facts: Partial<PayoutRunFacts> = {}): PayoutRunFacts => ({
  status: 'RUNNING',
  workflowType: PAYOUT_WORKFLOW_TYPE,
  taskQueue: 'payrun',
  input: input(),
  ...facts,
});
const ctx = { taskQueue: 'payrun', ledgerId: `ledger-${INN}`, ledgerOf: (inn: string) => `ledger-${inn}` };
const why = (a: ProvePayoutAsk, r: PayoutRunFacts | undefined) => {
  const j = judgePayoutRun(a, r, ctx);
  return j.ok ? 'ok' : j.why;
};

describe('proving a reservation came from the payout it names', () => {
  it("takes the running payout run's own reservation", () => {
    const judged = judgePayoutRun(ask, run(), ctx);
    expect(judged).toMatchObject({ ok: true, request: { reference: 'row-1', amount: 900_000_00 } });
  });

  it('refuses every other sender, and says why without naming the person', () => {
    expect(why({ ...ask, workflowId: 'payout-row-2' }, run())).toBe('not_its_workflow');
    expect(why(ask, undefined)).toBe('no_such_run');
    expect(why(ask, run({ status: 'COMPLETED' }))).toBe('run_closed');
    expect(why(ask, run({ status: 'TERMINATED' }))).toBe('run_closed');
    expect(why(ask, run({ workflowType: 'batchWorkflow' }))).toBe('not_a_payout');
    expect(why(ask, run({ taskQueue: 'elsewhere' }))).toBe('not_a_payout');
    expect(why(ask, run({ input: input({}, { reconcileOnly: true }) }))).toBe('not_a_payout');
    expect(why(ask, run({ input: undefined }))).toBe('unreadable_input');
    expect(why(ask, run({ input: input({ reference: 'row-2' }) }))).toBe('other_reference');
    expect(why({ ...ask, amount: 1 }, run())).toBe('other_amount');
    expect(
      why(
        ask,
        run({ input: input({ recipient: { lastName: 'А', firstName: 'Б', taxReference: '7707083893' } }) }),
      ),
    ).toBe('other_recipient');
    expect(why({ ...ask, selfEmployed: false }, run())).toBe('other_kind');
    const refused = judgePayoutRun(
      ask,
      run({ input: input({ recipient: { lastName: 'А', firstName: 'Б', taxReference: '7707083893' } }) }),
      ctx,
    );
    expect(JSON.stringify(refused)).not.toMatch(/7707083893|500100732259/);
  });
});

describe('when a proven reservation counts', () => {
  const december30 = Date.parse('2026-12-30T10:00:00Z');
  it('a row paid now counts now', () => {
    expect(countsFrom({}, december30)).toBe(december30);
  });
  it('a row scheduled for 11 January counts from 00:00 Moscow time that day, in 2027 and its month', () => {
    const at = countsFrom({ payOn: '2027-01-11' }, december30);
    expect(new Date(at).toISOString()).toBe('2027-01-10T21:00:00.000Z');
    expect(moscowYearMonth(new Date(at).toISOString())).toEqual({ year: 2027, month: '2027-01' });
  });
  it('a row whose day has come counts now, never earlier', () => {
    expect(countsFrom({ payOn: '2026-12-30' }, december30)).toBe(december30);
    expect(countsFrom({ payOn: '2026-01-05' }, december30)).toBe(december30);
  });
});
