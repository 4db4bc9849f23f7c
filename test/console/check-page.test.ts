import { MESSAGES } from '../../src/console/messages';
import { CHECK_SHOWN_ERRORS, checkPage } from '../../src/console/views';
import { loadBatch } from '../../src/csv';
import type { Lang } from '../../src/i18n';
import { batchCsv } from '../harness/batches';

/**
 * The checked file's page, on a console with and without the bank: compose gives the bank's settings and
 * key to the worker alone, so its console has no dry run and must say why on the page, not only after a click.
 */
const batch = loadBatch(batchCsv([{ reference: 'check-page-1' }]));
const page = (lang: Lang, dryRunAvailable: boolean) =>
  checkPage(
    { lang, m: MESSAGES[lang], csrf: 'c' } as Parameters<typeof checkPage>[0],
    'u1',
    'a.csv',
    batch,
    dryRunAvailable,
  );
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('console check page, the dry run', () => {
  it('offers the dry run where the console has the bank', () => {
    expect(page('ru', true)).toContain('action="/uploads/u1/dry-run"');
    expect(page('ru', true)).not.toContain('id="dry-run-off"');
  });

  it('says in Russian (and English) why there is no dry run where it has none, and still offers the submit', () => {
    const ru = page('ru', false);
    expect(ru).not.toContain('/dry-run"');
    expect(ru).toContain('action="/uploads/u1/submit"');
    expect(text(ru)).toContain(
      'Пробный прогон здесь выключен: консоль работает без настроек и ключа банка (они есть только у воркера).',
    );
    expect(text(page('en', false))).toContain(
      'The dry run is off here: the console runs without the bank settings and key (only the worker has them).',
    );
  });
});

describe('console check page, a file with many errors', () => {
  it('lists at most CHECK_SHOWN_ERRORS row errors and says how many there are', () => {
    const errors = Array.from({ length: CHECK_SHOWN_ERRORS + 500 }, (_, i) => ({
      row: i + 2,
      column: 'amount',
      rule: 'amount_format',
      message: 'not money',
    }));
    const html = checkPage(
      { lang: 'en', m: MESSAGES.en, csrf: 'c' } as Parameters<typeof checkPage>[0],
      'u1',
      'big.csv',
      {
        fileErrors: [],
        rowErrors: errors.slice(0, CHECK_SHOWN_ERRORS),
        rowErrorCount: errors.length,
        totals: { rows: errors.length, valid: 0, invalid: errors.length, acceptedKopecks: 0 },
        rejected: true,
      },
      false,
    );
    expect(html.match(/<code>amount_format<\/code>/g)).toHaveLength(CHECK_SHOWN_ERRORS);
    expect(text(html)).toContain(`The first ${CHECK_SHOWN_ERRORS} of ${errors.length} errors are shown`);
    expect(text(page('en', false))).not.toContain('errors are shown');
  });
});
