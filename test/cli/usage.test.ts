import { main } from '../../src/cli';
import { parseMaxInFlight } from '../../src/cli/operator';
import { captureOutput } from '../harness/capture';

// Usage errors end before anything is read, connected or paid: exit 2 with the rule named.
describe('payrun usage errors', () => {
  const said = captureOutput();

  it.each(['0', '501', 'abc', '-3', '2.5', ''])(
    '--max-in-flight %p is a usage error naming 1–500',
    async (n) => {
      const code = await main([
        'node',
        'payrun',
        'batch',
        'submit',
        'no-such-file.csv',
        '--max-in-flight',
        n,
      ]);
      expect(code).toBe(2);
      expect(said.stderr).toContain(
        'ошибка: параметр --max-in-flight: нужно целое число от 1 до 500\n(описание команды',
      );
    },
  );

  it('takes a whole number from 1 to 500', () => {
    expect(parseMaxInFlight('1')).toBe(1);
    expect(parseMaxInFlight('500')).toBe(500);
    expect(parseMaxInFlight(' 50 ')).toBe(50);
  });
});

describe('batch submit --expect-total', () => {
  const said = captureOutput();
  const lang = process.env.PAYRUN_LANG;
  afterEach(() => {
    if (lang === undefined) delete process.env.PAYRUN_LANG;
    else process.env.PAYRUN_LANG = lang;
  });
  const submit = (total: string) =>
    main(['node', 'payrun', 'batch', 'submit', 'no-such-file.csv', '--expect-total', total]);

  it.each([
    ['ru', 'abc', 'ошибка: параметр', 'ожидается сумма в рублях, например 14 234,46 или 14234.46'],
    ['en', '1,234.5', 'error: option', 'expected an amount in rubles, e.g. 14 234,46 or 14234.46'],
  ])(
    'not roubles (%s): a usage error naming the flag and how to write it',
    async (language, total, prefix, message) => {
      process.env.PAYRUN_LANG = language;
      expect(await submit(total)).toBe(2);
      expect(said.stderr).toContain(`${prefix} --expect-total: ${message}\n`);
      expect(said.stderr).not.toContain(total);
    },
  );
});
