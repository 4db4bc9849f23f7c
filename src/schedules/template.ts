/**
 * A recurring payrun's template, checked when the schedule is made, and again, the same way, for each
 * period: every row valid, none dated (a period pays once approved), each reference short enough to
 * take the period's date.
 */
import { contentHash, loadBatch, type LoadOptions, type RowError } from '../csv';
import { t } from '../i18n';
import { PERIOD_SUFFIX_LENGTH } from './period-file';
import { TEMPLATE_MAX_BYTES } from '../../workflows/recurring-payrun/contract';

const REFERENCE_MAX = 64 - PERIOD_SUFFIX_LENGTH;

export type TemplateCheck =
  { ok: true; sha256: string; rows: number; totalKopecks: number } | { ok: false; errors: RowError[] };

export function checkTemplate(bytes: Buffer, load: LoadOptions): TemplateCheck {
  if (bytes.length > TEMPLATE_MAX_BYTES)
    return {
      ok: false,
      errors: [
        {
          row: 1,
          column: null,
          rule: 'template_too_big',
          message: t('recurring.template_too_big', { max: TEMPLATE_MAX_BYTES }),
        },
      ],
    };
  const batch = loadBatch(bytes, { ...load, policy: 'whole-file' });
  const errors: RowError[] = [...batch.fileErrors, ...batch.rows.flatMap((r) => r.errors)];
  for (const row of batch.rows) {
    const request = row.request;
    if (!request) continue;
    if (request.payOn !== undefined)
      errors.push({
        row: row.row,
        column: 'pay_on',
        rule: 'template_pay_on',
        message: t('recurring.template_pay_on'),
      });
    if (request.reference.length > REFERENCE_MAX)
      errors.push({
        row: row.row,
        column: 'reference',
        rule: 'template_reference_long',
        message: t('recurring.template_reference_long', { max: REFERENCE_MAX }),
      });
  }
  if (errors.length > 0 || batch.rejected) return { ok: false, errors: errors.sort((a, b) => a.row - b.row) };
  return {
    ok: true,
    sha256: contentHash(bytes),
    rows: batch.totals.valid,
    totalKopecks: batch.totals.acceptedKopecks,
  };
}
