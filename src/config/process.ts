import { rublesToKopecks } from '../money';
import { ConfigError, type Env } from './core';

/**
 * Settings every payrun process reads, checked together at its start (loadProcessSettings) so a bad value
 * stops the process at once, naming the variable, instead of at the first message or CSV row deep inside a
 * batch.
 */

/** LOG_LEVEL: pino's levels; `info` says what each process does without a line per payout. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevelName = 'info';

export function loadLogLevel(env: Env = process.env): LogLevelName {
  const raw = env.LOG_LEVEL?.trim();
  if (!raw) return DEFAULT_LOG_LEVEL;
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return raw as LogLevelName;
  throw new ConfigError([`LOG_LEVEL: one of ${LOG_LEVELS.join(', ')}, not "${raw}"`]);
}

/**
 * The level loggers are made with. They are made as modules load, before a process checks its settings,
 * so a bad LOG_LEVEL logs at the default until loadProcessSettings stops the process, naming it.
 */
export function loggerLevel(env: Env = process.env): LogLevelName {
  try {
    return loadLogLevel(env);
  } catch {
    return DEFAULT_LOG_LEVEL;
  }
}

/** PAYRUN_LANG: the language of messages for people; Russian, since the users are an accounting department. */
export const LANGS = ['ru', 'en'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'ru';

export function loadLang(env: Env = process.env): Lang {
  const value = env.PAYRUN_LANG?.trim().toLowerCase();
  if (!value) return DEFAULT_LANG;
  if ((LANGS as readonly string[]).includes(value)) return value as Lang;
  throw new ConfigError([
    `PAYRUN_LANG: ru or en (the language of messages for people), not "${env.PAYRUN_LANG}"`,
  ]);
}

/**
 * PAYRUN_DATA_DIR: where a process keeps its local state (the dev payload key, the folder batch store,
 * the reconciliation store). One relative default, so every process started from one directory agrees.
 */
export const DEFAULT_DATA_DIR = '.payrun';

export function loadDataDir(env: Env = process.env): string {
  return env.PAYRUN_DATA_DIR?.trim() || DEFAULT_DATA_DIR;
}

/**
 * PAYRUN_MAX_PAYOUT: the most one payout may be. A self-employed person may earn 2.4 million roubles a
 * year, so one payout above a million is almost always a mistyped amount (150 000 000,00 for 150 000,00).
 */
export const DEFAULT_MAX_PAYOUT_KOPECKS = 1_000_000_00;

/** Roubles as accounting writes them ("1 000 000", "250000,00"); undefined when unset. */
export function loadMaxPayout(env: Env = process.env): number | undefined {
  const text = env.PAYRUN_MAX_PAYOUT;
  if (text === undefined || text.trim() === '') return undefined;
  let kopecks = 0;
  try {
    kopecks = rublesToKopecks(text);
  } catch {
    // refused below, naming the variable
  }
  if (kopecks <= 0)
    throw new ConfigError([
      `PAYRUN_MAX_PAYOUT: the most one payout may be, in roubles (like "1 000 000" or "250000,00"), not "${text}"`,
    ]);
  return kopecks;
}

export interface ProcessSettings {
  logLevel: LogLevelName;
  lang: Lang;
  dataDir: string;
  maxPayoutKopecks: number;
}

/** Every process-wide setting, each problem named; called first by every entry point. */
export function loadProcessSettings(env: Env = process.env): ProcessSettings {
  const problems: string[] = [];
  const attempt = <T>(load: () => T, fallback: T): T => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return fallback;
    }
  };
  const settings = {
    logLevel: attempt(() => loadLogLevel(env), DEFAULT_LOG_LEVEL),
    lang: attempt(() => loadLang(env), DEFAULT_LANG),
    dataDir: loadDataDir(env),
    maxPayoutKopecks: attempt(() => loadMaxPayout(env), undefined) ?? DEFAULT_MAX_PAYOUT_KOPECKS,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/** Who is at the keyboard when nobody signed in (USER, else LOGNAME): recorded, never trusted. */
export function loadLoginName(env: Env = process.env): string | undefined {
  return env.USER || env.LOGNAME || undefined;
}
