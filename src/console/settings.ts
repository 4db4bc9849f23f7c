/**
 * The console's settings, PAYRUN_CONSOLE_*: where it listens, who it is (an authenticating service of the
 * policy file, with its own Ed25519 key), how long a sign-in lasts and how fast sign-ins may be tried.
 * Checked whole at start; every problem names its variable.
 */
import { ConfigError, type Env } from '../config';

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
}

function whole(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    problems.push(`${name}: a whole number from ${min} to ${max}, not "${raw}"`);
    return fallback;
  }
  return n;
}

function flag(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  problems.push(`${name}: true or false, not "${env[name]}"`);
  return fallback;
}

export function loadConsoleSettings(env: Env = process.env): ConsoleSettings {
  const problems: string[] = [];
  const port = whole(env, 'PAYRUN_CONSOLE_PORT', 8070, 0, 65535, problems);
  const sessionMinutes = whole(env, 'PAYRUN_CONSOLE_SESSION_MINUTES', 480, 1, 7 * 24 * 60, problems);
  const loginPerMinute = whole(env, 'PAYRUN_CONSOLE_LOGIN_PER_MINUTE', 10, 1, 10_000, problems);
  const serviceId = env.PAYRUN_CONSOLE_SERVICE_ID?.trim() || 'console';
  const keyFile = env.PAYRUN_CONSOLE_KEY_FILE?.trim() ?? '';
  if (!keyFile)
    problems.push(
      'PAYRUN_CONSOLE_KEY_FILE: required: the console’s own private key (payrun keys generate --person console), listed in the policy for a person with role authenticator',
    );
  const secureCookies = flag(env, 'PAYRUN_CONSOLE_SECURE_COOKIES', true, problems);
  const trustProxy = flag(env, 'PAYRUN_CONSOLE_TRUST_PROXY', false, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    host: env.PAYRUN_CONSOLE_HOST?.trim() || '127.0.0.1',
    port,
    serviceId,
    keyFile,
    sessionMinutes,
    loginPerMinute,
    secureCookies,
    trustProxy,
  };
}
