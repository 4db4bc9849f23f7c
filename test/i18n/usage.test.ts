import { Command } from 'commander';
import { usageErrorText } from '../../src/i18n';
import { foreignWords } from '../harness/language';

/** What commander itself writes for a command line, caught rather than printed. */
function commanderSays(argv: string[]): string {
  let said = '';
  const program = new Command('payrun')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, outputError: (text) => void (said = text) });
  program
    .command('status')
    .argument('<id>', 'batch id')
    .requiredOption('--date <date>', 'a date')
    .option('--max <n>', 'a number', (v: string) => {
      if (v !== '1') throw new Error('unreachable');
      return v;
    })
    .action(() => undefined);
  try {
    program.parse(['node', 'payrun', ...argv]);
  } catch {
    // exitOverride: the usage error was caught after outputError
  }
  return said;
}

// commander's own usage errors, as this version writes them, said in the language set (src/i18n/usage.ts).
describe("commander's usage errors in Russian and English", () => {
  it.each([
    [['statuz'], 'ошибка: неизвестная команда statuz (возможно, имелась в виду status)'],
    [['status', 'x', '--date', 'd', '--bogus'], 'ошибка: неизвестный параметр --bogus'],
    [['status', '--date', 'd'], 'ошибка: не указан обязательный аргумент id'],
    [['status', 'x'], 'ошибка: не указан обязательный параметр --date'],
    [['status', 'x', '--date'], 'ошибка: у параметра --date нет значения'],
    [['status', 'x', 'y', '--date', 'd'], 'ошибка: лишние аргументы у команды status: нужно 1, дано 2'],
  ])('%j', (argv, russian) => {
    const text = commanderSays(argv);
    expect(text).toMatch(/^error: /); // commander's own form, which the table below must know
    expect(usageErrorText(text, 'ru')).toBe(`${russian}\n`);
    expect(foreignWords(usageErrorText(text, 'ru'), 'ru', ['statuz', 'status', 'bogus', 'date'])).toEqual([]);
    expect(foreignWords(usageErrorText(text, 'en'), 'en', ['statuz'])).toEqual([]);
  });

  it('keeps our own parser’s words and leaves out the value given (it may be a mistyped card or tax number)', () => {
    const text =
      "error: option '--inn <inn>' argument '500100732258' is invalid. контрольные цифры не сходятся\n";
    expect(usageErrorText(text, 'ru')).toBe('ошибка: параметр --inn: контрольные цифры не сходятся\n');
    expect(usageErrorText(text, 'en')).not.toContain('500100732258');
  });

  it('passes a form it does not know through unchanged', () => {
    expect(usageErrorText('error: something new\n', 'ru')).toBe('error: something new\n');
  });
});
