import { ConfigError, trueOrFalse, wholeNumber, type Env } from './core';

/**
 * The console's settings, PAYRUN_CONSOLE_*: where it listens, who it is (an authenticating service of the
 * policy file, with its own Ed25519 key), how long a sign-in lasts and how fast sign-ins may be tried.
 * Checked whole at start; every problem names its variable.
 */
export interface ConsoleSettings {
  host: string;
  port: number;
  /** The policy person (role authenticator) the console signs as, for the person signed in. */
  serviceId: string;
  /** That person's private key (payrun keys generate writes one). */
  keyFile: string;
  sessionMinutes: number;
  /** Sign-in attempts per minute from one address before 429. */
  loginPerMinute: number;
  /** Cookies marked Secure (default true; browsers accept them on http://localhost too). */
  secureCookies: boolean;
  /** Behind a reverse proxy: the client's address from X-Forwarded-For (sign-in limits count clients, not the proxy). */
  trustProxy: boolean;
  /** Failed or refused sign-ins for one login (any address) before it is locked (src/console/sign-in-guard.ts). */
  lockAfter: number;
  /** How long a locked login stays locked, and the window its failures are counted in. */
  lockMinutes: number;
  /** An approver signs in with a TOTP code too ('required', the default), or may without one ('optional'). */
  approverSecondFactor: 'required' | 'optional';
  /** The read API's tokens (src/api/tokens.ts); absent: only people signed in to the console read it. */
  apiTokensFile?: string;
  /** Read API answers per person per minute before 429. */
  apiPerMinute: number;
}

export function loadConsoleSettings(env: Env = process.env): ConsoleSettings {
  const problems: string[] = [];
  const port = wholeNumber(env, 'PAYRUN_CONSOLE_PORT', 8070, 0, 65535, problems);
  // A working day: one sign-in in the morning lasts until evening; at most a week.
  const sessionMinutes = wholeNumber(env, 'PAYRUN_CONSOLE_SESSION_MINUTES', 480, 1, 7 * 24 * 60, problems);
  // Enough for a person mistyping; too few for guessing a password.
  const loginPerMinute = wholeNumber(env, 'PAYRUN_CONSOLE_LOGIN_PER_MINUTE', 10, 1, 10_000, problems);
  const serviceId = env.PAYRUN_CONSOLE_SERVICE_ID?.trim() || 'console';
  const keyFile = env.PAYRUN_CONSOLE_KEY_FILE?.trim() ?? '';
  if (!keyFile)
    problems.push(
      'PAYRUN_CONSOLE_KEY_FILE: required: the console’s own private key (payrun keys generate --person console), listed in the policy for a person with role authenticator',
    );
  const secureCookies = trueOrFalse(env, 'PAYRUN_CONSOLE_SECURE_COOKIES', true, problems);
  const trustProxy = trueOrFalse(env, 'PAYRUN_CONSOLE_TRUST_PROXY', false, problems);
  // Enough for a person who forgot which password; the back-off before it slows a guesser to a crawl.
  const lockAfter = wholeNumber(env, 'PAYRUN_CONSOLE_LOCK_AFTER', 20, 3, 1000, problems);
  const lockMinutes = wholeNumber(env, 'PAYRUN_CONSOLE_LOCK_MINUTES', 15, 1, 24 * 60, problems);
  // A company's system polling a batch's pages every second stays under it; a loop gone wrong does not.
  const apiPerMinute = wholeNumber(env, 'PAYRUN_API_PER_MINUTE', 120, 1, 100_000, problems);
  const apiTokensFile = loadApiTokensFile(env);
  const secondFactor = env.PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR?.trim() || 'required';
  if (secondFactor !== 'required' && secondFactor !== 'optional')
    problems.push(`PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: required or optional, not "${secondFactor}"`);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    // Loopback: a TLS proxy in front of it is the way in (docs/console.md).
    host: env.PAYRUN_CONSOLE_HOST?.trim() || '127.0.0.1',
    port,
    serviceId,
    keyFile,
    sessionMinutes,
    loginPerMinute,
    secureCookies,
    trustProxy,
    lockAfter,
    lockMinutes,
    approverSecondFactor: secondFactor as 'required' | 'optional',
    apiPerMinute,
    ...(apiTokensFile ? { apiTokensFile } : {}),
  };
}

/** PAYRUN_API_TOKENS_FILE: the read API's tokens (src/api/tokens.ts), or undefined when not set. */
export function loadApiTokensFile(env: Env = process.env): string | undefined {
  return env.PAYRUN_API_TOKENS_FILE?.trim() || undefined;
}
