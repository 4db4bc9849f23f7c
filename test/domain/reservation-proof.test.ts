import { judgePayoutRun, PAYOUT_WORKFLOW_TYPE, type PayoutRunFacts } from '../../src/recipient/proof';
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
