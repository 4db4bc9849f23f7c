import { fold, maskInn, templateCsv, TEMPLATE_HEADERS } from '../../src/console/routes-work';
import { loadBatch } from '../../src/csv';
import { CONSOLE_WORK_MESSAGES } from '../../src/i18n/console-work';

/** Issue 39's console pieces that are pure: the template, the search's folding and masking, the words. */
describe('console work, pure parts', () => {
  it.each(['utf-8', 'windows-1251'] as const)('the %s template passes the check as downloaded', (enc) => {
    const batch = loadBatch(templateCsv(enc));
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rows.flatMap((r) => r.errors)).toEqual([]);
    expect(batch.totals).toMatchObject({ rows: 1, valid: 1, invalid: 0, acceptedKopecks: 150_000 });
    expect(batch.rows[0]!.request?.recipient).toMatchObject({ lastName: 'Иванова', middleName: 'Сергеевна' });
  });

  it('names every column of docs/batch-format.md’s template by a Russian header', () => {
    for (const h of TEMPLATE_HEADERS) expect(h).toMatch(/^[А-ЯЁа-яё. ]+$/);
  });

  it('folds case and ё, and masks an INN to its two first and two last digits', () => {
    expect(fold('  КУЗНЕЦОВА Пётр ')).toBe('кузнецова петр');
    expect(maskInn('770700000190')).toBe('77********90');
    expect(maskInn('7707000001')).toBe('77******01');
  });

  it('says each message in Russian and in English', () => {
    for (const [code, e] of Object.entries(CONSOLE_WORK_MESSAGES)) {
      const texts = e as { ru: (p: unknown) => string; en: (p: unknown) => string };
      const p = { account: 'A', last: 'L', open: 1, behind: 0, n: 1, error: 'E', by: 'B', at: 'T' };
      const params = { ...p, reason: 'R', batchId: 'b', rows: 1, total: 'S', from: 'f', why: 'W' };
      const all = { ...params, q: 'Q', more: false, name: 'N', median: 'M' };
      expect([code, texts.ru(all)]).toEqual([code, expect.stringMatching(/[А-Яа-яё]/)]);
      expect([code, texts.en(all)]).toEqual([code, expect.not.stringMatching(/[А-Яа-яё]/)]);
    }
  });
});
