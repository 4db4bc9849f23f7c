import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, readPem, type Env } from './core';

/**
 * The bank sandbox's own settings, SANDBOX_*. Not exported from the config index: only the sandbox's
 * process loads them, and nothing else of payrun should load the sandbox (docs/sandbox.md lists them).
 */

const VARS = {
  port: 'SANDBOX_PORT',
  host: 'SANDBOX_HOST',
  projectId: 'SANDBOX_PROJECT_ID',
  partnerPublicKey: 'SANDBOX_PARTNER_PUBLIC_KEY',
  partnerPublicKeyFile: 'SANDBOX_PARTNER_PUBLIC_KEY_FILE',
  bankPrivateKeyFile: 'SANDBOX_BANK_PRIVATE_KEY_FILE',
  webhookUrl: 'SANDBOX_WEBHOOK_URL',
  dataDir: 'SANDBOX_DATA_DIR',
  optionalWebhooks: 'SANDBOX_OPTIONAL_WEBHOOKS',
  admin: 'SANDBOX_ADMIN',
  seed: 'SANDBOX_SEED',
  clockStartAt: 'SANDBOX_CLOCK_START_AT',
  faultsFile: 'SANDBOX_FAULTS_FILE',
  profile: 'SANDBOX_PROFILE',
  timings: 'SANDBOX_TIMINGS',
  initialDeposit: 'SANDBOX_INITIAL_DEPOSIT_KOPECKS',
} as const;

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const schema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8090),
  host: z.string().default('127.0.0.1'),
  projectId: z.string().min(1, 'required: the partner project id the sandbox accepts'),
  partnerPublicKey: z.string().optional(),
  partnerPublicKeyFile: z.string().optional(),
  bankPrivateKeyFile: z.string().optional(),
  webhookUrl: z.url().optional(),
  dataDir: z.string().optional(),
  optionalWebhooks: bool.default(false),
  admin: bool.default(true),
  seed: z.coerce.number().int().default(1),
  clockStartAt: z.iso.datetime({ offset: true }).optional(),
  faultsFile: z.string().optional(),
  profile: z.enum(['instant', 'realistic']).default('instant'),
  timings: z.string().optional(),
  initialDeposit: z.coerce.number().int().min(0).optional(),
});

/** The sandbox's options as the variables give them (src/sandbox/main.ts hands them to startSandbox). */
export interface SandboxEnv<Faults> {
  port: number;
  host: string;
  projects: { id: string; publicKeyPem: string }[];
  bankPrivateKeyPem?: string;
  webhookUrl?: string;
  dataDir?: string;
  optionalWebhooks: boolean;
  admin: boolean;
  seed: number;
  clock?: { startAt: string };
  faults?: Faults;
  profile: 'instant' | 'realistic';
  timings?: Record<string, number>;
  accounts?: { initialDepositKopecks: number };
}

/**
 * Reads SANDBOX_* variables; every bad variable is named in one ConfigError. The fault rules are
 * checked by the sandbox's own checker, handed in (checkFaults) so that src/config, which the sandbox
 * imports, does not import the sandbox back.
 */
export function loadSandboxEnv<Faults>(
  checkFaults: (json: unknown) => Faults,
  env: Env = process.env,
): SandboxEnv<Faults> {
  const raw = Object.fromEntries(
    Object.entries(VARS).map(([k, name]) => [k, env[name] === '' ? undefined : env[name]]),
  );
  const parsed = schema.safeParse(raw);
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map(
        (i) => `${VARS[String(i.path[0]) as keyof typeof VARS] ?? String(i.path[0])}: ${i.message}`,
      );
  const s = parsed.success ? parsed.data : undefined;
  let publicKeyPem: string | undefined;
  try {
    publicKeyPem = readPem(raw.partnerPublicKey, raw.partnerPublicKeyFile, VARS.partnerPublicKeyFile);
  } catch (e) {
    problems.push(...(e as ConfigError).problems);
  }
  if (!publicKeyPem && !problems.some((p) => p.startsWith(VARS.partnerPublicKeyFile)))
    problems.push(
      `${VARS.partnerPublicKey} or ${VARS.partnerPublicKeyFile}: required (the partner's public key, PEM)`,
    );
  const readJson = (name: string, text: string | undefined, fromFile: boolean): unknown => {
    if (!text) return undefined;
    try {
      return JSON.parse(fromFile ? readFileSync(text, 'utf8') : text) as unknown;
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
      return undefined;
    }
  };
  let faults: Faults | undefined;
  const faultsJson = readJson(VARS.faultsFile, raw.faultsFile, true);
  if (faultsJson !== undefined) {
    try {
      faults = checkFaults(faultsJson);
    } catch (e) {
      problems.push(`${VARS.faultsFile}: ${(e as Error).message}`);
    }
  }
  const timings = readJson(VARS.timings, raw.timings, false) as Record<string, number> | undefined;
  if (
    timings &&
    (typeof timings !== 'object' || Object.values(timings).some((v) => typeof v !== 'number' || v < 0))
  )
    problems.push(
      `${VARS.timings}: must be a JSON object of non-negative numbers, e.g. {"readyToConfirmMs":200}`,
    );
  let bankPrivateKeyPem: string | undefined;
  if (raw.bankPrivateKeyFile) {
    try {
      bankPrivateKeyPem = readFileSync(raw.bankPrivateKeyFile, 'utf8');
    } catch (e) {
      problems.push(`${VARS.bankPrivateKeyFile}: ${(e as Error).message}`);
    }
  }
  if (problems.length || !s) throw new ConfigError(problems);
  return {
    port: s.port,
    host: s.host,
    projects: [{ id: s.projectId, publicKeyPem: publicKeyPem! }],
    bankPrivateKeyPem,
    webhookUrl: s.webhookUrl,
    dataDir: s.dataDir,
    optionalWebhooks: s.optionalWebhooks,
    admin: s.admin,
    seed: s.seed,
    clock: s.clockStartAt ? { startAt: s.clockStartAt } : undefined,
    faults,
    profile: s.profile,
    timings,
    accounts: s.initialDeposit !== undefined ? { initialDepositKopecks: s.initialDeposit } : undefined,
  };
}
