import { z } from 'zod';
import { kopecks, rub } from './rules';

/** alias/ru_vat_lite: VAT for foreign companies, paid to requisites the bank fixes. */
export const RuVatLiteParamsSchema = z
  .looseObject({
    period_type: z.enum(['month', 'quarter'], 'month_or_quarter'),
    period_number: z.string().regex(/^\d{1,2}$/, 'number_as_string'),
    period_year: z.string().regex(/^\d{4}$/, 'year_yyyy'),
    amount: kopecks,
    currency: rub,
  })
  .superRefine((p, ctx) => {
    const n = Number(p.period_number);
    const max = p.period_type === 'month' ? 12 : 4;
    if (n < 1 || n > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['period_number'],
        message: `range_1_${max}_for_${p.period_type}`,
      });
    }
  });
export type RuVatLiteParams = z.input<typeof RuVatLiteParamsSchema>;
