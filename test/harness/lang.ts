/**
 * Messages for people are Russian unless PAYRUN_LANG says otherwise: a test file about the English
 * texts sets it for its own tests and puts it back after.
 */
export function useLanguage(lang: 'ru' | 'en'): void {
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.PAYRUN_LANG;
    process.env.PAYRUN_LANG = lang;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.PAYRUN_LANG;
    else process.env.PAYRUN_LANG = before;
  });
}
