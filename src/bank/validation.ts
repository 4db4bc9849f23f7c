import type { z } from 'zod';
import { BankRequestValidationError, BankResponseValidationError } from './errors';

/**
 * A zod issue as `{field, rule}`: the rule name, never the offending value. Our own checks carry
 * their rule name as the message (no spaces); zod's built-in messages are turned into one.
 */
export function issueToRule(issue: z.core.$ZodIssue, input?: unknown): { field: string; rule: string } {
  const field = issue.path.map(String).join('.');
  if (
    valueAt(input, issue.path) === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'custom')
  ) {
    return { field, rule: 'required' };
  }
  if (!/\s/.test(issue.message)) return { field, rule: issue.message };
  switch (issue.code) {
    case 'invalid_type':
      return { field, rule: `expected_${issue.expected}` };
    case 'invalid_value':
      return { field, rule: `one_of_${issue.values.join('|')}` };
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      return { field, rule: options ? `one_of_${options.join('|')}` : 'no_matching_shape' };
    }
    default:
      return { field, rule: issue.code };
  }
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Parses caller params or throws BankRequestValidationError naming the first bad field. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => issueToRule(i, params));
  const first = issues[0] ?? { field: '', rule: 'invalid' };
  throw new BankRequestValidationError(first.field, first.rule, issues);
}

export function parseResponse<S extends z.ZodType>(
  schema: S,
  body: unknown,
  path: string,
  httpStatus: number,
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new BankResponseValidationError(
    path,
    httpStatus,
    result.error.issues.map((i) => issueToRule(i, body)),
  );
}

/** The idempotency header: 4 to 64 characters (spec), visible ASCII so it is a valid header value. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  const field = 'X-PARTNER-IDEMPOTENCY-KEY';
  if (key.length < 4 || key.length > 64) throw new BankRequestValidationError(field, 'length_4_64');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new BankRequestValidationError(field, 'visible_ascii');
}
