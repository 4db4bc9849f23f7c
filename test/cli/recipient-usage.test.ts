import { main } from '../../src/cli';
import { captureOutput } from '../harness/capture';

// `payrun recipient show|link` refuse a tax number that cannot be anyone's before connecting to anything:
// exit 2 naming the rule. A typo used to be shown as "never paid" or sent to the bank (docs/payouts.md).
describe('payrun recipient usage errors', () => {
  const said = captureOutput();
  const address = process.env.TEMPORAL_ADDRESS;
  beforeEach(() => {
    // Nothing listens here: a command that went on to connect would fail (1), not refuse its input (2).
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:9';
  });
  afterEach(() => {
    if (address === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = address;
  });
  const run = (...args: string[]) => main(['node', 'payrun', 'recipient', ...args]);

  it.each([
    ['show', '500100732258', /контрольные цифры ИНН не сходятся/],
    ['show', '7707083894', /контрольные цифры ИНН не сходятся/],
    ['show', '50010073225', /10 или 12 цифр/],
    ['show', 'abcdefghijkl', /10 или 12 цифр/],
    ['show', '', /10 или 12 цифр/],
    ['show', '1'.repeat(5000).slice(0, 5000), /10 или 12 цифр/],
    ['show', '007707083854', /такого региона нет/],
    ['link', '500100732258', /контрольные цифры ИНН не сходятся/],
    ['link', '007707083854', /такого региона нет/],
    ['link', '7707083893', /ИНН самозанятого: 12 цифр/],
    ['en:show', '500100732258', /check digits do not match/],
    ['en:link', '7707083893', /self-employed person's tax number \(INN\): 12 digits/],
  ])('recipient %s (%#) is refused naming the rule', async (asked, inn, rule) => {
    const [command, english] = asked.startsWith('en:') ? [asked.slice(3), true] : [asked, false];
    const lang = process.env.PAYRUN_LANG;
    process.env.PAYRUN_LANG = english ? 'en' : 'ru';
    try {
      expect(await run(command, inn)).toBe(2);
    } finally {
      if (lang === undefined) delete process.env.PAYRUN_LANG;
      else process.env.PAYRUN_LANG = lang;
    }
    expect(said.stderr).toMatch(english ? /argument inn: / : /аргумент inn: /);
    expect(said.stderr).toMatch(rule);
    if (inn) expect(said.stderr).not.toContain(inn.slice(0, 12)); // a typo'd tax number is personal data too
    expect(said.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(said.stdout).toBe('');
  });

  it('refuses a missing tax number and a --return-url that is not an http(s) address', async () => {
    expect(await run('show')).toBe(2);
    expect(said.stderr).toContain('ошибка: не указан обязательный аргумент inn');
    for (const url of ['notaurl', 'ftp://x', 'javascript:alert(1)', 'https://a.example/x y']) {
      said.stderr = '';
      expect(await run('link', '500100732259', '--return-url', url)).toBe(2);
      expect(said.stderr).toContain(
        'ошибка: параметр --return-url: нужен адрес http(s), например https://accounting.example/linked',
      );
    }
    // The ledger's Update refuses more than 2 000 characters: said before anything starts.
    said.stderr = '';
    const long = `https://a.example/${'a'.repeat(2_000)}`;
    expect(await run('link', '500100732259', '--return-url', long)).toBe(2);
    expect(said.stderr).toContain('ошибка: параметр --return-url: не длиннее 2000 символов, а здесь 2018');
  });

  it('link records who asked: with nobody signed in and no USER it says how to give a name (exit 2)', async () => {
    const saved = { ...process.env };
    try {
      for (const name of ['USER', 'LOGNAME', 'PAYRUN_PERSON', 'PAYRUN_KEY_FILE']) delete process.env[name];
      process.env.XDG_CONFIG_HOME = '/nonexistent-payrun-config';
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      expect(await run('link', '500100732259')).toBe(2);
      const text = errors.mock.calls.flat().join('\n');
      errors.mockRestore();
      expect(text).toContain('--by: who asks?');
      expect(text).toContain('payrun login');
      expect(said.stdout).toBe('');
    } finally {
      for (const name of ['USER', 'LOGNAME', 'PAYRUN_PERSON', 'PAYRUN_KEY_FILE', 'XDG_CONFIG_HOME'])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    }
  });
});
