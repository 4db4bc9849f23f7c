import {
  formatRubles,
  MoneyFormatError,
  parseKopecks,
  rublesToKopecks,
  sameCurrency,
  sumKopecks,
} from '../src/money';

describe('rublesToKopecks', () => {
  it.each([
    ['1 234,56', 123456],
    ['1234.56', 123456],
    ['1\u00a0234,5', 123450],
    ['12\u202f000', 1200000],
    ['0,01', 1],
    ['7', 700],
    ['  15,00 ', 1500],
    ['-3,10', -310],
    ['0.1', 10],
  ])('%j → %d kopecks exactly', (input, kopecks) => {
    expect(rublesToKopecks(input)).toBe(kopecks);
  });

  it('never drifts the way floats do', () => {
    expect(rublesToKopecks('0.29')).toBe(29); // 0.29 * 100 === 28.999999999999996 in floating point
  });

  it.each([
    ['1,234.56', /mixes decimal and thousand separators/],
    ['1.234,56', /mixes/],
    ['12,345', /more than two decimals/],
    ['1e3', /not a number/],
    ['', /not a number/],
    ['abc', /not a number/],
    ['99999999999999999', /too large/],
  ])('rejects %j', (input, rule) => {
    expect(() => rublesToKopecks(input)).toThrow(MoneyFormatError);
    expect(() => rublesToKopecks(input)).toThrow(rule);
  });
});

describe('parseKopecks', () => {
  it('reads whole kopecks', () => expect(parseKopecks(' 123 456 ')).toBe(123456));
  it('refuses decimals', () => expect(() => parseKopecks('12,5')).toThrow(/whole number/));
});

describe('formatRubles', () => {
  it.each([
    [123456, '1 234,56'],
    [5, '0,05'],
    [100, '1,00'],
    [-123456789, '-1 234 567,89'],
  ])('%d → %j', (kopecks, text) => expect(formatRubles(kopecks)).toBe(text));
  it('round-trips through rublesToKopecks', () => {
    for (const k of [1, 99, 100, 123456, 987654321]) expect(rublesToKopecks(formatRubles(k))).toBe(k);
  });
});

describe('currency and sums', () => {
  it('compares currency codes case-insensitively', () => {
    expect(sameCurrency('RUB', ' rub')).toBe(true);
    expect(sameCurrency('rub', 'tjs')).toBe(false);
  });
  it('sums and refuses to lose precision', () => {
    expect(sumKopecks([1, 2, 3])).toBe(6);
    expect(() => sumKopecks([Number.MAX_SAFE_INTEGER, 1])).toThrow(RangeError);
  });
});
