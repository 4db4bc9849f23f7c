/**
 * What every workflow's contract checks its input and commands with: the result type, the failure a
 * workflow throws for refused input, the field rules, and the message builder. Anyone who reaches Temporal
 * (UI, `temporal workflow start/signal`, a script) can send arbitrary JSON, so handlers parse first and act
 * only on what comes back `ok`.
 *
 * Workflow-safe: pure and deterministic, no Node APIs, no I/O (the workflow bundle includes it). Messages
 * name the field path and the rule; values of personal fields (card, account, phone, tax number, names,
 * e-mail, free text) are never echoed, only what kind of value came. Exports are builders, never a
 * schema instance (test/workflows/frozen-exports.test.ts).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import { chars, field, isBatchId, text } from '../../src/domain';
import { isPersonId } from './approval';

export type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/** What a workflow throws for input it refuses: retrying the same input can never succeed. */
export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'invalid_input', message, nonRetryable: true });
}

// ---------------------------------------------------------------- rules

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Control, format, private-use and unassigned characters, and line/paragraph separators. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** Marks a cross-field issue whose message already names the values it compared. */
export const SAYS_WHAT_IT_SAW = 'saysWhatItSaw';

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const base64 = (maxBytes: number, what: string) => {
  const max = 4 * Math.ceil(maxBytes / 3);
  return field<string>(
    `expected ${what}: Base64 of at most ${max} characters`,
    (v) => isString(v) && v.length <= max && BASE64.test(v),
  );
};
export const digits = (pattern: RegExp, rule: string) =>
  field<string>(`expected ${rule}, as a string`, (v) => isString(v) && pattern.test(v));
export const bool = () => field<boolean>('expected true or false', (v) => typeof v === 'boolean');
/** A time span in milliseconds between min and max, written as a plain JSON number. */
export const millis = (min: number, max: number) =>
  field<number>(
    `expected milliseconds from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max,
  );
export const count = (min: number, max: number, what = 'a whole number') =>
  field<number>(
    `expected ${what} from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
  );
export const tally = () =>
  field<number>('expected a whole number, 0 or more', (v) => Number.isSafeInteger(v) && (v as number) >= 0);
export const object = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.object(shape, { error: 'expected an object' });

export const batchIdField = () =>
  field<string>('expected batch-<16 hex digits>, optionally followed by -retry-<n>', (v) =>
    isString(v) ? isBatchId(v) : false,
  );

export const personIdField = () => field<string>('expected a person id of the policy', isPersonId);

/** Who decided an operator command: trimmed, 1–128 printable characters. */
export const operatorName = () =>
  field<string>(
    'expected the name of who decided: 1–128 printable characters',
    (v) => isString(v) && v.trim() !== '' && chars(v.trim()) <= 128 && !UNPRINTABLE.test(v.trim()),
  ).transform((v) => v.trim());
export const remark = () => text(500);

// ---------------------------------------------------------------- messages

/**
 * Paths whose values may be shown in a message. Everything else (recipient, method details,
 * free text, the bank's documents, operators' own words) is described by kind and length only.
 */
const ECHOABLE = new Set([
  'reference',
  'request.reference',
  'request.amount',
  'request.currency',
  'request.selfEmployed',
  'request.method.type',
  'amount',
  'pollAfterMs',
  'batchId',
  'sessionId',
  'id',
  'type',
  'receivedAt',
  'replyTo',
  'maxAgeMs',
  'checkedAt',
  'awaitAcknowledgement',
  'acknowledgementTimeoutMs',
]);
const isEchoable = (path: string): boolean =>
  ECHOABLE.has(path) || /^(options|carry|state)(\.|$)/.test(path) || /^lateFor\.\d+$/.test(path);

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `text of ${chars(value)} characters`;
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'true or false';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

function shown(value: unknown): string {
  if (typeof value === 'string') {
    const cut = chars(value) > 40 ? `${[...value].slice(0, 40).join('')}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return kindOf(value);
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key))
      return { found: false, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value };
}

const MAX_ISSUES = 10;

/** A key nobody defined: named (cut to 40 characters), never its value. */
function unknownKeys(path: string, keys: readonly string[]): string {
  return keys
    .map(
      (key) =>
        `${path ? `${path}.` : ''}${shown(key).slice(1, -1)}: expected no such field (unknown fields are refused, not dropped)`,
    )
    .join('; ');
}

function describe(error: z.ZodError, raw: unknown): string {
  const parts = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return unknownKeys(path, issue.keys);
    const { found, value } = valueAt(raw, issue.path);
    let got: string;
    if (issue.code === 'custom' && issue.params?.[SAYS_WHAT_IT_SAW]) got = '';
    else if (!found || value === undefined) got = path === '' ? ', got nothing' : ', but it is missing';
    else got = `, got ${isEchoable(path) ? shown(value) : kindOf(value)}`;
    return `${path || 'input'}: ${issue.message}${got}`;
  });
  const more = error.issues.length - MAX_ISSUES;
  return parts.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

export function parseWith<T>(schema: z.ZodType, raw: unknown): Result<T> {
  const r = schema.safeParse(raw);
  return r.success ? { ok: true, value: r.data as T } : { ok: false, message: describe(r.error, raw) };
}

// Type-only: a contract's schema output must fit the type it declares (Fits), and every key that type
// declares must have a rule (Keys), or a new option would be silently stripped.
export type Fits<A extends B, B> = A;
export type Keys<S extends z.ZodType> = keyof NonNullable<z.output<S>>;
