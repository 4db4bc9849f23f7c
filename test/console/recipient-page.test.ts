import { describeRecipient } from '../../src/cli/recipient';
import { MESSAGES } from '../../src/console/messages';
import { recipientPage } from '../../src/console/views-recipients';
import type { RecipientHeadroom } from '../../src/batch/services/headroom';
import type { Lang } from '../../src/i18n';
import type { RecipientView } from '../../workflows/recipient-ledger/contract';

/** The console's recipient page names every limit `payrun recipient show` names, with the same figures. */
const headroom: RecipientHeadroom = {
  year: 2026,
  capLeftKopecks: 2_290_000_00,
  monthLeftKopecks: 180_000_00,
  limits: {
    yearlyCapKopecks: 2_400_000_00,
    knownIncomeKopecks: 100_000_00,
    perMonthKopecks: 200_000_00,
    perPayoutKopecks: 50_000_00,
  },
};
const page = (lang: Lang, h: RecipientHeadroom) =>
  recipientPage({ lang, m: MESSAGES[lang], csrf: 'c' }, { who: '********0190', headroom: h })
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('console recipient page, limits', () => {
  it('the cap with the income from elsewhere, the monthly and the per-payout limit, in Russian and in English', () => {
    const ru = page('ru', headroom);
    expect(ru).toContain(
      'Лимит дохода самозанятого 2 400 000,00 ₽, доход из других источников 100 000,00 ₽: можно выплатить ещё 2 290 000,00 ₽',
    );
    expect(ru).toContain('Месячный лимит 200 000,00 ₽: можно выплатить ещё 180 000,00 ₽');
    expect(ru).toContain('Лимит одной выплаты 50 000,00 ₽');
    const en = page('en', headroom);
    expect(en).toContain(
      'Self-employed income cap 2 400 000,00 ₽, income from elsewhere 100 000,00 ₽: 2 290 000,00 ₽ can still be paid',
    );
    expect(en).toContain('Per-payout limit 50 000,00 ₽');
  });

  it('shows every figure the CLI shows, and no cap where the CLI shows none', () => {
    const figures = (lines: string[]) => lines.join('\n').match(/\d[\d ]*,\d\d ₽/g) ?? [];
    const cli = figures(describeRecipient('770700000190', undefined, headroom));
    expect(cli).toHaveLength(6);
    for (const f of cli) expect(page('ru', headroom)).toContain(f);
    const organisation: RecipientHeadroom = {
      year: 2026,
      monthLeftKopecks: 180_000_00,
      limits: { perMonthKopecks: 200_000_00, perPayoutKopecks: 50_000_00 },
    };
    expect(figures(describeRecipient('7707083893', undefined, organisation))).toEqual([
      '200 000,00 ₽',
      '180 000,00 ₽',
      '50 000,00 ₽',
    ]);
    expect(page('ru', organisation)).not.toContain('самозанят');
    expect(page('ru', organisation)).toContain('Лимит одной выплаты 50 000,00 ₽');
  });

  it('lists reservations refused as not from a payout, with why, apart from the figures, in both languages', () => {
    const view: RecipientView = {
      years: [],
      openReservations: 0,
      refused: [
        {
          reference: 'row-7',
          workflowId: 'payout-row-7',
          amount: 1,
          at: '2026-06-01T10:00:00Z',
          why: 'no_such_run',
          reason: 'payout-row-7 has no run',
        },
      ],
    };
    const shown = (lang: Lang) =>
      recipientPage({ lang, m: MESSAGES[lang], csrf: 'c' }, { who: '********0190', read: { view } })
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ');
    expect(shown('ru')).toContain('Отклонённые резервы: не от выплаты, в суммах не учтены');
    expect(shown('ru')).toMatch(/row-7 0,01 ₽ такого запуска выплаты нет/);
    expect(shown('en')).toMatch(/row-7 0,01 ₽ no such payout run/);
    expect(describeRecipient('770700000190', view).join('\n')).toMatch(
      /отклонённые резервы \(не от выплаты, не учтены\):\n {4}.* row-7 0,01 ₽ отклонён: такого запуска выплаты нет/,
    );
  });
});
