import {
  returnShortfall,
  type ProvenReturn,
  type ReturnedPayout,
} from '../../workflows/payout-return/contract';

// Only a whole return makes a row `returned` and payable again (docs/payouts.md "Returns"): a part that
// came back would otherwise be paid again in full.

const payout: ReturnedPayout = {
  reference: 'R-1',
  payoutWorkflowId: 'payout-R-1',
  amount: 123_456,
  selfEmployed: true,
};
const proven = (amountKopecks: number | undefined): ProvenReturn =>
  ({
    source: 'statement',
    bankWords: 'Return of payout',
    bankDate: '2026-11-27',
    evidenceId: 'bs-1',
    amountKopecks,
  }) as ProvenReturn;

describe('how much of a payout the bank’s return covers', () => {
  it.each([
    ['the whole amount', 123_456, 0],
    ['the amount with the fee back (a statement credit)', 125_000, 0],
    ['one kopeck short', 123_455, 1],
    ['a part', 50_000, 73_456],
    ['nothing', 0, 123_456],
  ])('%s: short by %#', (_what, back, short) => {
    expect(returnShortfall(proven(back), payout)).toBe(short);
  });

  it('an amount the evidence does not state (a history from before amounts were kept) covers nothing', () => {
    expect(returnShortfall(proven(undefined), payout)).toBe(payout.amount);
    expect(returnShortfall({ ...proven(1), amountKopecks: '123456' as never }, payout)).toBe(payout.amount);
  });
});
