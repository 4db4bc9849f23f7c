import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, isProduction, parseSection, type Env } from './core';
import { loadDataDir } from './process';

/** Where Temporal is and how to reach it securely (docs/operations.md, "Connecting payrun to Temporal"). */
export const temporalSchema = z.object({
  /** The dev server's own address and namespace, so `make demo` and the tests need no settings. */
  address: z.string().default('localhost:7233'),
  namespace: z.string().default('default'),
  /** Every process of one deployment must agree on it: workers poll it, everyone else starts work on it. */
  taskQueue: z.string().default('payrun'),
  /** 'true' forces TLS with the system's roots, 'false' forces plain; absent: TLS when any TLS file or API key is set. */
  tls: z.enum(['true', 'false'], 'must be true or false').optional(),
  tlsCaFile: z.string().optional(),
  tlsCertFile: z.string().optional(),
  tlsKeyFile: z.string().optional(),
  tlsServerName: z.string().optional(),
  apiKey: z.string().optional(),
  apiKeyFile: z.string().optional(),
});
export type TemporalConfig = z.infer<typeof temporalSchema>;

/** Connection settings that contradict each other; each problem names both sides. */
export function temporalSecurityProblems(t: TemporalConfig): string[] {
  const problems: string[] = [];
  if (Boolean(t.tlsCertFile) !== Boolean(t.tlsKeyFile))
    problems.push('TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE: mTLS needs both, or neither');
  const anyTlsSetting = Boolean(t.tlsCaFile || t.tlsCertFile || t.tlsKeyFile || t.tlsServerName);
  if (t.tls === 'false' && anyTlsSetting)
    problems.push('TEMPORAL_TLS: false contradicts the TEMPORAL_TLS_* files that are set');
  if (t.apiKey && t.apiKeyFile)
    problems.push('TEMPORAL_API_KEY and TEMPORAL_API_KEY_FILE: set one, not both');
  return problems;
}

export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  const config = parseSection(temporalSchema, env, {
    address: 'TEMPORAL_ADDRESS',
    namespace: 'TEMPORAL_NAMESPACE',
    taskQueue: 'PAYRUN_TASK_QUEUE',
    tls: 'TEMPORAL_TLS',
    tlsCaFile: 'TEMPORAL_TLS_CA_FILE',
    tlsCertFile: 'TEMPORAL_TLS_CERT_FILE',
    tlsKeyFile: 'TEMPORAL_TLS_KEY_FILE',
    tlsServerName: 'TEMPORAL_TLS_SERVER_NAME',
    apiKey: 'TEMPORAL_API_KEY',
    apiKeyFile: 'TEMPORAL_API_KEY_FILE',
  });
  const problems = temporalSecurityProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** One AES-256 key that encrypts Temporal payloads and the batch store, named by its id. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses `id:<base64 of 32 bytes>,id2:<base64>` (commas or newlines between entries). The first key
 * encrypts; every key decrypts, so a rotation prepends the new key and keeps the old ones.
 */
export function parsePayloadKeys(text: string, variable: string): PayloadKey[] {
  const problems: string[] = [];
  const keys: PayloadKey[] = [];
  const entries = text
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) problems.push(`${variable}: no keys (expected id:<base64 of 32 bytes>,…)`);
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!KEY_ID.test(id)) {
      problems.push(`${variable}: entry ${i + 1} must be id:<base64>, the id 1–64 of A-Z a-z 0-9 . _ -`);
      return;
    }
    const b64 = entry.slice(colon + 1);
    const key = Buffer.from(b64, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || key.length !== 32) {
      problems.push(
        `${variable}: key "${id}" is ${key.length} bytes; AES-256 needs 32 (make one with: openssl rand -base64 32)`,
      );
      return;
    }
    if (keys.some((k) => k.id === id)) problems.push(`${variable}: key id "${id}" appears twice`);
    else keys.push({ id, key });
  });
  if (problems.length) throw new ConfigError(problems);
  return keys;
}

export interface PayloadKeysConfig {
  /** Absent when neither variable is set: production refuses, dev and tests use a local key file. */
  keys?: PayloadKey[];
  production: boolean;
  /** Where the dev key file lives (`<dataDir>/keys/payload-keys`). */
  dataDir: string;
}

export function loadPayloadKeysConfig(env: Env = process.env): PayloadKeysConfig {
  const inline = env.PAYRUN_PAYLOAD_KEYS || undefined;
  const file = env.PAYRUN_PAYLOAD_KEYS_FILE || undefined;
  if (inline && file)
    throw new ConfigError(['PAYRUN_PAYLOAD_KEYS and PAYRUN_PAYLOAD_KEYS_FILE: set one, not both']);
  let keys: PayloadKey[] | undefined;
  if (inline) keys = parsePayloadKeys(inline, 'PAYRUN_PAYLOAD_KEYS');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError([`PAYRUN_PAYLOAD_KEYS_FILE: cannot read ${file} (${(err as Error).message})`]);
    }
    keys = parsePayloadKeys(text, 'PAYRUN_PAYLOAD_KEYS_FILE');
  }
  return { keys, production: isProduction(env), dataDir: loadDataDir(env) };
}

/** Dev and tests only: their INNs are test data, and every process must agree without set-up. */
const DEV_WORKFLOW_ID_SECRET = Buffer.from('payrun-dev-workflow-id-secret-not-secret');

/**
 * PAYRUN_WORKFLOW_ID_SECRET (base64, at least 32 bytes): the HMAC key for workflow ids derived from
 * personal data (src/temporal/ids.ts says why). Required in production; it must never change while
 * taxpayer workflows run (a new secret names new workflows, and the old ones' cached verdicts are simply
 * not found again).
 */
export function loadWorkflowIdSecret(env: Env = process.env): Buffer {
  const raw = workflowIdSecretText(env);
  if (!raw) {
    if (isProduction(env))
      throw new ConfigError([
        'PAYRUN_WORKFLOW_ID_SECRET: required in production (base64 of 32+ random bytes: openssl rand -base64 32)',
      ]);
    return DEV_WORKFLOW_ID_SECRET;
  }
  const secret = Buffer.from(raw, 'base64');
  if (secret.length < 32)
    throw new ConfigError([
      `PAYRUN_WORKFLOW_ID_SECRET: ${secret.length} bytes; at least 32 are needed (openssl rand -base64 32)`,
    ]);
  return secret;
}

/** PAYRUN_WORKFLOW_ID_SECRET or, so that no secret sits in a process's environment (the Helm chart), its _FILE. */
function workflowIdSecretText(env: Env): string | undefined {
  const inline = env.PAYRUN_WORKFLOW_ID_SECRET || undefined;
  const file = env.PAYRUN_WORKFLOW_ID_SECRET_FILE || undefined;
  if (inline && file)
    throw new ConfigError([
      'PAYRUN_WORKFLOW_ID_SECRET and PAYRUN_WORKFLOW_ID_SECRET_FILE: set one, not both',
    ]);
  if (!file) return inline;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError([
      `PAYRUN_WORKFLOW_ID_SECRET_FILE: cannot read ${file} (${(err as Error).message})`,
    ]);
  }
}

/** TEMPORAL_LOG_LEVEL: the SDK's own log level; WARN keeps its routine chatter out of payrun's logs. */
export const TEMPORAL_LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type TemporalLogLevel = (typeof TEMPORAL_LOG_LEVELS)[number];

export function loadTemporalLogLevel(env: Env = process.env): TemporalLogLevel {
  const raw = env.TEMPORAL_LOG_LEVEL?.trim();
  if (!raw) return 'WARN';
  if ((TEMPORAL_LOG_LEVELS as readonly string[]).includes(raw)) return raw as TemporalLogLevel;
  throw new ConfigError([`TEMPORAL_LOG_LEVEL: one of ${TEMPORAL_LOG_LEVELS.join(', ')}, not "${raw}"`]);
}

/** TEMPORAL_CLI_PATH: a Temporal CLI installed by other means, instead of the pinned one payrun builds. */
export function loadTemporalCliPath(env: Env = process.env): string | undefined {
  return env.TEMPORAL_CLI_PATH || undefined;
}
