import { planHeadroom, type HeadroomOf, type HeadroomRow } from '../../src/batch/services/headroom';

// The dry run's headroom: rows taken in file order as their payouts would reserve them.
const A = '500100732259';
const B = '770700000190';
const row = (n: number, amount: number, taxReference = A, extra: Partial<HeadroomRow> = {}): HeadroomRow => ({
  row: n,
  amount,
  taxReference,
  selfEmployed: true,
  pay: true,
  ...extra,
});

describe('planHeadroom', () => {
  it('refuses the rows a limit would refuse, in the order the limits are checked, and uses up the rest', async () => {
    const asked: [string, boolean][] = [];
    const headroomOf: HeadroomOf = async (inn, selfEmployed) => {
      asked.push([inn, selfEmployed]);
      if (inn !== A) return undefined; // no limit for B
      return {
        year: 2026,
        capLeftKopecks: 1_000_00,
        monthLeftKopecks: 1_500_00,
        limits: { yearlyCapKopecks: 5_000_00, perMonthKopecks: 3_000_00, perPayoutKopecks: 900_00 },
      };
    };
    const plan = await planHeadroom(
      [
        row(2, 600_00),
        row(3, 950_00), // over the per-payout limit
        row(4, 500_00), // 400,00 left under the cap
        row(5, 300_00, A, { selfEmployed: false }), // not capped, but the month counts it
        row(6, 700_00, A, { selfEmployed: false }), // 600,00 left this month
        row(7, 100_00, A, { pay: false }), // refused already: uses nothing
        row(8, 5_000_00, B),
      ],
      headroomOf,
    );
    expect([...plan.refused.keys()]).toEqual([3, 4, 6]);
    expect(plan.refused.get(3)).toBe('950,00 ₽ превысит лимит одной выплаты 900,00 ₽ (limit_exceeded)');
    expect(plan.refused.get(4)).toBe(
      '500,00 ₽ превысит лимит дохода самозанятого за 2026 год 5 000,00 ₽: осталось 400,00 ₽ (limit_exceeded)',
    );
    expect(plan.refused.get(6)).toBe(
      '700,00 ₽ превысит месячный лимит 3 000,00 ₽: осталось 600,00 ₽ (limit_exceeded)',
    );
    expect(plan.people).toEqual([
      {
        who: '********2259',
        year: 2026,
        cap: { limitKopecks: 5_000_00, leftKopecks: 1_000_00, afterKopecks: 400_00 },
        month: { limitKopecks: 3_000_00, leftKopecks: 1_500_00, afterKopecks: 600_00 },
        perPayoutKopecks: 900_00,
      },
    ]);
    // Each person once, asked with the cap when any of their rows is self-employed.
    expect(asked.sort()).toEqual([
      [A, true],
      [B, true],
    ]);
  });
});
