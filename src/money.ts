/**
 * Money is integer kopecks end to end. Parsing works on the digits as text, never through
 * floating point, so "1 234,56" is exactly 123456 and "0.1" + "0.2" can never drift.
 */
export type Kopecks = number;

export class MoneyFormatError extends Error {
  constructor(
    readonly input: string,
    readonly rule: string,
  ) {
    super(`amount "${input}": ${rule}`);
    this.name = 'MoneyFormatError';
  }
}

// Spaces of every kind spreadsheets use as thousand separators (plain, no-break, narrow no-break, thin).
const GROUP_SEPARATORS = /[\s\u00a0\u202f\u2009']/g;

/**
 * Rubles as written by people and spreadsheets → kopecks. Accepts a decimal comma or point,
 * spaces as thousand separators, at most two decimals, an optional leading sign.
 * Rejects anything ambiguous ("1,234.56", "1.234,56", exponent notation) instead of guessing.
 */
export function rublesToKopecks(input: string): Kopecks {
  const text = input.trim().replace(GROUP_SEPARATORS, '');
  const m = /^([+-]?)(\d+)(?:[.,](\d*))?$/.exec(text);
  if (!m) {
    if (/^[+-]?\d+([.,]\d+){2,}$/.test(text) || (/[.]/.test(text) && /[,]/.test(text))) {
      throw new MoneyFormatError(input, 'mixes decimal and thousand separators; write 1234,56 or 1 234.56');
    }
    throw new MoneyFormatError(input, 'not a number of rubles');
  }
  const [, sign, whole, frac = ''] = m;
  if (frac.length > 2) throw new MoneyFormatError(input, 'more than two decimals');
  const kopecks = BigInt(whole!) * 100n + BigInt(frac.padEnd(2, '0') || '0');
  if (kopecks > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyFormatError(input, 'too large');
  const n = Number(kopecks);
  return sign === '-' ? -n : n;
}

/** Kopecks given as a whole number in text ("123456") → kopecks; no decimals allowed. */
export function parseKopecks(input: string): Kopecks {
  const text = input.trim().replace(GROUP_SEPARATORS, '');
  if (!/^[+-]?\d+$/.test(text)) throw new MoneyFormatError(input, 'kopecks must be a whole number');
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new MoneyFormatError(input, 'too large');
  return n;
}

export function isPositiveKopecks(n: unknown): n is Kopecks {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
}

/** 123456 → "1 234,56" (the way Russian accounting writes it); integer arithmetic only. */
export function formatRubles(
  kopecks: Kopecks,
  opts: { decimalSeparator?: ',' | '.'; group?: string } = {},
): string {
  const sep = opts.decimalSeparator ?? ',';
  const group = opts.group ?? ' ';
  const negative = kopecks < 0;
  const abs = BigInt(Math.abs(kopecks));
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const frac = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${whole}${sep}${frac}`;
}

/**
 * 123456 → "1234,56": money in a CSV cell of its own, as Russian Excel's import reads a number (comma
 * decimals, no thousands separator: with a space, plain or no-break, the cell is imported as text and
 * does not add up). Sentences keep formatRubles's grouped "1 234,56".
 */
export function cellRubles(kopecks: Kopecks): string {
  return formatRubles(kopecks, { group: '' });
}

/** ISO 4217 codes are case-insensitive in the bank's API. */
export function sameCurrency(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export function sumKopecks(values: Iterable<Kopecks>): Kopecks {
  let total = 0;
  for (const v of values) {
    total += v;
    if (!Number.isSafeInteger(total)) throw new RangeError('kopeck total exceeds safe integer range');
  }
  return total;
}
