import { foreignWords } from '../harness/language';

const words = (text: string, lang: 'ru' | 'en', allowed: string[] = []) =>
  foreignWords(text, lang, allowed).map((f) => f.word);

describe('the word classifier of the language test', () => {
  it('finds an English sentence in a Russian text', () => {
    expect(words('Требуется утверждение: the policy requires approval of submitted files', 'ru')).toEqual([
      'the',
      'policy',
      'requires',
      'approval',
      'submitted',
      'files',
    ]);
  });

  it('finds Russian in an English text', () => {
    expect(words('approval: waiting; утверждений: 1 из 2', 'en')).toEqual(['утверждений', 'из']);
  });

  it('a Russian text with only identifiers, units and commands passes', () => {
    const text =
      'пакет batch-20261126-ab12 (файл march.csv), строка 3 ref-2026-003: сумма 1 234,56 ₽, 26.11.2026 12:45 МСК; ' +
      'ошибка amount_positive; адрес https://bank.example/x; повторить: payrun batch retry-failed ID --again; ' +
      'версия UTF-8, ИНН ********1234';
    expect(words(text, 'ru')).toEqual([]);
  });

  it("the bank's own words are set apart only where quoted and labelled", () => {
    expect(
      words('банк отказал (declined_by_issuer_bank). Слова банка: "declined by the issuer bank"', 'ru'),
    ).toEqual([]);
    expect(words('банк отказал: declined by the issuer bank', 'ru')).toEqual([
      'declined',
      'the',
      'issuer',
      'bank',
    ]);
  });

  it('a flag is an identifier anywhere, with punctuation after it; a word after a dash is still a word', () => {
    expect(words('ошибка: параметр --date: не дата', 'ru')).toEqual([]);
    expect(words('ошибка: параметр --max-in-flight, --by.', 'ru')).toEqual([]);
    expect(words('ошибка - date', 'ru')).toEqual(['date']);
  });

  it('short Latin words (units, letters) are not words; hyphenated words are judged by their parts', () => {
    expect(words('10 s, 5 MB, ID', 'ru')).toEqual([]);
    expect(words('получатель self-employed', 'ru')).toEqual(['self', 'employed']);
  });

  it("a test's own data (people's names) is allowed only where passed", () => {
    expect(words('approved by Мария Подготовкина', 'en')).toEqual(['Мария', 'Подготовкина']);
    expect(words('approved by Мария Подготовкина', 'en', ['Мария', 'Подготовкина'])).toEqual([]);
  });

  it('a command run by its path and a setting as typed are identifiers, not words', () => {
    expect(
      words('как сделали бы вы: PAYRUN_PERSON=oleg bin/payrun batch approve ID; с KEEP=1 они остаются', 'ru'),
    ).toEqual([]);
    expect(words('с KEEP они остаются, keep them', 'ru')).toEqual(['KEEP', 'keep', 'them']);
  });

  it('the edges of a sentence are punctuation: "файл." is a word, "report.csv" a name', () => {
    expect(words('The file is rejected.', 'ru')).toEqual(['The', 'file', 'rejected']);
    expect(words('report.csv', 'ru')).toEqual([]);
  });
});
