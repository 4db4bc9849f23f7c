import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Env } from './core';

/** Who may pay, and who is asking (docs/security.md#who-may-pay). */

/** PAYRUN_POLICY_FILE: the policy file (people, roles, keys, rules); no default, a guess could let anyone pay. */
export const POLICY_VARIABLE = 'PAYRUN_POLICY_FILE';

/** The policy file's path, or undefined when none is named (commands that can do without one). */
export function policyPathIfSet(env: Env = process.env): string | undefined {
  return env[POLICY_VARIABLE] || undefined;
}

/** The policy file's path; a process that needs one and has none stops here, naming the variable. */
export function loadPolicyPath(env: Env = process.env): string {
  const path = policyPathIfSet(env);
  if (!path)
    throw new ConfigError([
      `${POLICY_VARIABLE}: required: the policy file naming who may submit and approve payouts (docs/security.md#who-may-pay)`,
    ]);
  return path;
}

/** Where `payrun login` keeps its credential: $XDG_CONFIG_HOME/payrun, else ~/.config/payrun (the XDG rule). */
export function loadCredentialDir(env: Env = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'payrun');
}

/**
 * PAYRUN_PERSON with PAYRUN_KEY_FILE: who this process is, without `payrun login` (scripts, the demo, the
 * watcher). Both or neither; undefined when neither.
 */
export function loadGivenSigner(env: Env = process.env): { person: string; keyFile: string } | undefined {
  const person = env.PAYRUN_PERSON || undefined;
  const keyFile = env.PAYRUN_KEY_FILE || undefined;
  if (!person && !keyFile) return undefined;
  if (!person || !keyFile)
    throw new ConfigError([
      'PAYRUN_PERSON and PAYRUN_KEY_FILE: set both (who you are, and the key that proves it), or neither',
    ]);
  return { person, keyFile };
}
