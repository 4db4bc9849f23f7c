import { runCli } from '../harness/cli-process';
import { freshInn } from '../harness/batches';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';

/**
 * `payrun recipient show` prints what can still be paid under every limit the dry run and the console
 * judge by: with a monthly limit tighter than the cap, the month's figure is the one that refuses the next
 * row. It once printed the cap's figure alone (13 531,73 ₽ "left" while the month had 3 531,73 ₽).
 */
const INN = freshInn(99_101);
const RULES = {
  ...NO_APPROVALS,
  self_employed_yearly_cap: '50 000,00',
  self_employed_cap_margin: '5 000,00',
  per_month_limit: '4 000,00',
  recipients: [{ inn: INN, known_income: '10 000,00', per_payout_limit: '2 000,00' }],
};

describe('payrun recipient show: every limit', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
  });
  afterAll(async () => stack?.stop());

  it('prints the cap, the month and the per-payout limit, and --json gives the same figures', async () => {
    const request = payoutRequest({ amount: 150_000 });
    const paid = await outcome(
      await startPayout(stack, { ...request, recipient: { ...request.recipient, taxReference: INN } }),
    );
    expect(paid.state).toBe('succeeded');

    const shown = await runCli(['recipient', 'show', INN], stack.cliEnv('viewer'));
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('');
    expect(`${shown.stdout}${shown.stderr}`).not.toContain(INN);
    // 50 000,00 less the margin 5 000,00 = 45 000,00; less 10 000,00 from elsewhere and 1 500,00 paid.
    expect(shown.stdout).toContain(
      'лимит дохода самозанятого 45 000,00 ₽, доход из других источников 10 000,00 ₽: осталось 33 500,00 ₽',
    );
    expect(shown.stdout).toContain('месячный лимит 4 000,00 ₽: осталось 2 500,00 ₽');
    expect(shown.stdout).toContain('лимит одной выплаты 2 000,00 ₽');

    const english = await runCli(['recipient', 'show', INN], {
      ...stack.cliEnv('viewer'),
      PAYRUN_LANG: 'en',
    });
    expect(english.stdout).toContain('monthly limit 4 000,00 ₽: 2 500,00 ₽ left');

    const json = await runCli(['recipient', 'show', INN, '--json'], stack.cliEnv('viewer'));
    expect(json.code).toBe(0);
    expect(json.stdout).not.toContain(INN);
    const figures = JSON.parse(json.stdout) as { headroom?: unknown };
    expect(figures.headroom).toEqual({
      year: expect.any(Number),
      capLeftKopecks: 3_350_000,
      monthLeftKopecks: 250_000,
      limits: {
        yearlyCapKopecks: 4_500_000,
        knownIncomeKopecks: 1_000_000,
        perPayoutKopecks: 200_000,
        perMonthKopecks: 400_000,
      },
    });
  });

  it("shows an organisation's 10-digit tax number no self-employed cap, only its other limits", async () => {
    const shown = await runCli(['recipient', 'show', '7707083893'], stack.cliEnv('viewer'));
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain('лимит дохода самозанятого');
    expect(shown.stdout).toContain('месячный лимит 4 000,00 ₽: осталось 4 000,00 ₽');
  });

  it('shows a person payrun never paid their whole headroom, less what the policy knows of', async () => {
    const never = freshInn(99_102);
    const shown = await runCli(['recipient', 'show', never], stack.cliEnv('viewer'));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('payrun ещё ничего не выплачивал');
    expect(shown.stdout).toContain('лимит дохода самозанятого 45 000,00 ₽: осталось 45 000,00 ₽');
    expect(shown.stdout).toContain('месячный лимит 4 000,00 ₽: осталось 4 000,00 ₽');
  });
});
