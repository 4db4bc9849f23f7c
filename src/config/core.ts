import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Every problem of a section at once, each naming its variable and the rule it breaks. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/**
 * The process's environment with some variables replaced: for a child process (the demo's), or for a
 * store that keeps its key file in another data directory. Callers name what they change, nothing else.
 */
export function envWith(overrides: Env): Env {
  return { ...process.env, ...overrides };
}

/** Parses the variables `vars` names with `schema`; an empty variable counts as unset. */
export function parseSection<S extends z.ZodObject>(
  schema: S,
  env: Env,
  vars: Record<keyof z.infer<S>, string>,
): z.infer<S> {
  const raw: Record<string, string | undefined> = {};
  for (const [field, name] of Object.entries(vars) as [string, string][]) {
    const v = env[name];
    raw[field] = v === '' ? undefined : v;
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((i) => {
      const field = String(i.path[0]);
      const missing = raw[field] === undefined;
      return `${vars[field as keyof z.infer<S>] ?? field}: ${missing ? 'required but not set' : i.message}`;
    }),
  );
}

/**
 * Reads a PEM given inline (with literal \n allowed) or from a file path; a file that cannot be read is
 * a configuration error naming `fileVariable` (exit 2), not a bare ENOENT.
 */
export function readPem(
  inline: string | undefined,
  file: string | undefined,
  fileVariable: string,
): string | undefined {
  if (inline) return inline.replace(/\\n/g, '\n');
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${fileVariable}: cannot read ${file} (${(err as Error).message})`]);
  }
}

export const port = z.coerce.number().int().min(0).max(65535);
export const positiveInt = z.coerce.number().int().positive();
/** A comma-separated variable as a list of its trimmed, non-empty items. */
export const commaList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );

/** A whole number in [min, max], or `fallback` when unset; a bad value is pushed to `problems`. */
export function wholeNumber(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    problems.push(`${name}: a whole number from ${min} to ${max}, not "${raw}"`);
    return fallback;
  }
  return n;
}

/** true or false (any case), or `fallback` when unset; a bad value is pushed to `problems`. */
export function trueOrFalse(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  problems.push(`${name}: true or false, not "${env[name]}"`);
  return fallback;
}

/** Production is NODE_ENV=production (the image sets it) or live bank credentials. */
export function isProduction(env: Env = process.env): boolean {
  return env.NODE_ENV === 'production' || env.BANK_ENV === 'live';
}
