import { invalid } from './http/errors';
import { checkInn12, isCardLength, isPhone7, isValidInn10, luhnOk } from '../domain';
import { getPath, isObject } from './util';

/**
 * The sandbox's own request checks, answering as the bank does. The rules of the details themselves
 * (card, INN, phone, account) are src/domain's, as everywhere in payrun (issue 24). Problems are
 * collected as `field.path: rule` and thrown together as one invalid_request.
 */
export class Checker {
  readonly problems: string[] = [];
  constructor(readonly body: Record<string, unknown>) {}

  /** A problem found twice (by the general block check and a method's own list) is reported once. */
  add(path: string, rule: string): void {
    const problem = `${path}: ${rule}`;
    if (!this.problems.includes(problem)) this.problems.push(problem);
  }

  get(path: string): unknown {
    return getPath(this.body, path);
  }

  /** Present and, for strings, not blank. */
  required(path: string): boolean {
    const v = this.get(path);
    if (v === undefined || v === null) return this.fail(path, 'not_blank (required)');
    if (typeof v === 'string' && v.trim() === '') return this.fail(path, 'not_blank');
    return true;
  }

  string(
    path: string,
    opts: {
      required?: boolean;
      max?: number;
      min?: number;
      pattern?: RegExp;
      /** A domain rule (src/domain/rules.ts), reported as `rule` like a pattern. */
      valid?: (text: string) => boolean;
      rule?: string;
    } = {},
  ): string | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (opts.required) this.add(path, 'not_blank (required)');
      return undefined;
    }
    if (typeof v !== 'string') return void this.add(path, 'must be a string');
    if (opts.required && v.trim() === '') return void this.add(path, 'not_blank');
    // Characters as a person counts them (code points): an emoji is one, not two UTF-16 units.
    const length = [...v].length;
    if (opts.max !== undefined && length > opts.max)
      return void this.add(path, `invalid_length (at most ${opts.max} characters)`);
    if (opts.min !== undefined && length < opts.min)
      return void this.add(path, `invalid_length (at least ${opts.min} characters)`);
    if (opts.pattern && !opts.pattern.test(v))
      return void this.add(path, opts.rule ?? `must match ${String(opts.pattern)}`);
    if (opts.valid && !opts.valid(v)) return void this.add(path, opts.rule ?? 'invalid value');
    return v;
  }

  object(path: string, required = false): Record<string, unknown> | undefined {
    const v = path === '' ? this.body : this.get(path);
    if (v === undefined || v === null) {
      if (required) this.add(path, 'not_blank (required)');
      return undefined;
    }
    if (!isObject(v)) return void this.add(path, 'must be an object');
    return v;
  }

  oneOf<T extends string>(path: string, values: readonly T[], required = true): T | undefined {
    const v = this.string(path, { required });
    if (v === undefined) return undefined;
    if (!values.includes(v as T)) return void this.add(path, `must be one of ${values.join(', ')}`);
    return v as T;
  }

  amount(path: string, required = true): number | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (required) this.add(path, 'not_blank (required)');
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v))
      return void this.add(path, 'must be an integer (minor units)');
    if (v <= 0) return void this.add(path, 'must be greater than 0');
    return v;
  }

  currency(path: string, required = true, allowed?: string[]): string | undefined {
    const v = this.string(path, { required, pattern: /^[A-Za-z]{3}$/, rule: 'must be an ISO 4217 code' });
    if (v && allowed && !allowed.includes(v.toLowerCase()))
      return void this.add(path, `must be ${allowed.join(' or ')}`);
    return v?.toLowerCase();
  }

  /** amount_details {amount > 0, currency}. */
  amountDetails(
    path: string,
    required: boolean,
    allowed: string[] | undefined = ['rub'],
  ): { amount: number; currency: string } | undefined {
    const o = this.object(path, required);
    if (!o) return undefined;
    const amount = this.amount(`${path}.amount`);
    const currency = this.currency(`${path}.currency`, true, allowed);
    return amount !== undefined && currency ? { amount, currency } : undefined;
  }

  inn12(path: string, required = true): string | undefined {
    const v = this.string(path, { required, pattern: /^\d{12}$/, rule: 'must be 12 digits' });
    return v && this.inn12Digits(path, v) ? v : undefined;
  }

  inn(path: string): string | undefined {
    const v = this.string(path, { pattern: /^(\d{10}|\d{12})$/, rule: 'must be 10 or 12 digits' });
    if (v === undefined) return undefined;
    if (v.length === 12) return this.inn12Digits(path, v) ? v : undefined;
    return isValidInn10(v) ? v : void this.add(path, 'invalid check digits');
  }

  private inn12Digits(path: string, inn: string): boolean {
    const verdict = checkInn12(inn);
    if (verdict === 'checksum') return this.fail(path, 'invalid check digits');
    if (verdict === 'region') return this.fail(path, 'invalid region (00)');
    return true;
  }

  card(path: string): string | undefined {
    const v = this.string(path, { required: true, valid: isCardLength, rule: 'must be 13 to 19 digits' });
    if (v && !luhnOk(v)) return void this.add(path, 'invalid card number (checksum)');
    return v;
  }

  phone(path: string, required = true): string | undefined {
    return this.string(path, { required, valid: isPhone7, rule: 'must be 11 digits starting with 7' });
  }

  date(path: string, required = true, pattern = /^\d{4}-\d{2}-\d{2}$/): string | undefined {
    const v = this.string(path, { required, pattern, rule: 'invalid value' });
    if (v && pattern.source.startsWith('^\\d{4}') && Number.isNaN(Date.parse(`${v}T00:00:00Z`)))
      return void this.add(path, 'invalid value');
    return v;
  }

  url(path: string, required = false): string | undefined {
    const v = this.string(path, { required });
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      return v;
    } catch {
      return void this.add(path, 'must be a valid URL');
    }
  }

  check(): void {
    if (this.problems.length) throw invalid(this.problems.join('; '));
  }

  private fail(path: string, rule: string): false {
    this.add(path, rule);
    return false;
  }
}
