import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The one place environment variables are read. Each part of payrun loads the sections it needs:
 * the worker loads the bank (caller) section and not the ingress's webhook key or port, the ingress
 * loads the webhook key and not the partner private key, the sandbox neither. Every missing or invalid
 * variable is reported at once, by name.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

function parseSection<S extends z.ZodObject>(
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

/** Reads a PEM given inline (with literal \n allowed) or from a file path. */
export function readPem(inline: string | undefined, file: string | undefined): string | undefined {
  if (inline) return inline.replace(/\\n/g, '\n');
  if (file) return readFileSync(file, 'utf8');
  return undefined;
}

const port = z.coerce.number().int().min(0).max(65535);
/** A comma-separated variable as a list of its trimmed, non-empty items. */
const commaList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
const positiveInt = z.coerce.number().int().positive();

export const temporalSchema = z.object({
  address: z.string().default('localhost:7233'),
  namespace: z.string().default('default'),
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

export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  return parseSection(temporalSchema, env, {
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

/** Production is NODE_ENV=production (the image sets it) or live bank credentials. */
export function isProduction(env: Env = process.env): boolean {
  return env.NODE_ENV === 'production' || env.BANK_ENV === 'live';
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
  return { keys, production: isProduction(env), dataDir: env.PAYRUN_DATA_DIR || '.payrun' };
}

const codecServerSchema = z.object({
  port: port.default(8888),
  host: z.string().default('127.0.0.1'),
  token: z
    .string()
    .min(24, 'must be at least 24 characters (make one with: openssl rand -hex 24)')
    .optional(),
  tokenFile: z.string().optional(),
  /** Comma-separated browser origins of the Temporal UI that may call the codec server. */
  corsOrigins: commaList('http://localhost:8233'),
});

export interface CodecServerConfig {
  port: number;
  host: string;
  /** The operator token: `Authorization: Bearer <token>` or the path prefix `/<token>/`. */
  token: string;
  corsOrigins: string[];
}

export function loadCodecServerConfig(env: Env = process.env): CodecServerConfig {
  const s = parseSection(codecServerSchema, env, {
    port: 'PAYRUN_CODEC_PORT',
    host: 'PAYRUN_CODEC_HOST',
    token: 'PAYRUN_CODEC_TOKEN',
    tokenFile: 'PAYRUN_CODEC_TOKEN_FILE',
    corsOrigins: 'PAYRUN_CODEC_CORS_ORIGINS',
  });
  let token = s.token;
  if (!token && s.tokenFile) {
    try {
      token = readFileSync(s.tokenFile, 'utf8').trim();
    } catch (err) {
      throw new ConfigError([
        `PAYRUN_CODEC_TOKEN_FILE: cannot read ${s.tokenFile} (${(err as Error).message})`,
      ]);
    }
    if (token.length < 24)
      throw new ConfigError(['PAYRUN_CODEC_TOKEN_FILE: the token must be at least 24 characters']);
  }
  if (!token)
    throw new ConfigError([
      "PAYRUN_CODEC_TOKEN or PAYRUN_CODEC_TOKEN_FILE: required (the operators' token for the codec server)",
    ]);
  return { port: s.port, host: s.host, token, corsOrigins: s.corsOrigins };
}

const bankEnvSchema = z.object({
  environment: z.enum(['test', 'live']).default('test'),
  baseUrlTest: z.url().optional(),
  baseUrlLive: z.url().optional(),
  project: z.string().min(1, 'required: the project id issued by the bank manager'),
  submerchant: z.string().optional(),
  privateKey: z.string().optional(),
  privateKeyFile: z.string().optional(),
  apiVersion: z.enum(['1', '2']).default('1'),
  connectTimeoutMs: positiveInt.default(5_000),
  requestTimeoutMs: positiveInt.default(30_000),
});

export interface BankConfig {
  environment: 'test' | 'live';
  baseUrl: string;
  project: string;
  submerchant?: string;
  privateKeyPem: string;
  apiVersion: 1 | 2;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * What calling the bank needs (the worker, the CLI's dry run): test and live are two base URLs; BANK_ENV
 * picks one. The bank's webhook key is the ingress's business (loadIngressConfig), not the caller's.
 */
export function loadBankConfig(env: Env = process.env): BankConfig {
  const s = parseSection(bankEnvSchema, env, {
    environment: 'BANK_ENV',
    baseUrlTest: 'BANK_BASE_URL_TEST',
    baseUrlLive: 'BANK_BASE_URL_LIVE',
    project: 'PARTNER_PROJECT',
    submerchant: 'PARTNER_SUBMERCHANT',
    privateKey: 'PARTNER_PRIVATE_KEY',
    privateKeyFile: 'PARTNER_PRIVATE_KEY_FILE',
    apiVersion: 'BANK_API_VERSION',
    connectTimeoutMs: 'BANK_CONNECT_TIMEOUT_MS',
    requestTimeoutMs: 'BANK_REQUEST_TIMEOUT_MS',
  });
  const live = s.environment === 'live';
  const problems: string[] = [];
  const baseUrl = live ? s.baseUrlLive : s.baseUrlTest;
  if (!baseUrl)
    problems.push(
      `${live ? 'BANK_BASE_URL_LIVE' : 'BANK_BASE_URL_TEST'}: required when BANK_ENV=${s.environment}`,
    );
  const privateKeyPem = readPem(s.privateKey, s.privateKeyFile);
  if (!privateKeyPem)
    problems.push('PARTNER_PRIVATE_KEY or PARTNER_PRIVATE_KEY_FILE: required (signs requests)');
  if (problems.length) throw new ConfigError(problems);
  return {
    environment: s.environment,
    baseUrl: baseUrl!,
    project: s.project,
    submerchant: s.submerchant,
    privateKeyPem: privateKeyPem!,
    apiVersion: s.apiVersion === '2' ? 2 : 1,
    connectTimeoutMs: s.connectTimeoutMs,
    requestTimeoutMs: s.requestTimeoutMs,
  };
}

const INGRESS_VARS = {
  port: 'INGRESS_PORT',
  host: 'INGRESS_HOST',
  allowedIps: 'INGRESS_ALLOWED_IPS',
  maxBodyBytes: 'INGRESS_MAX_BODY_BYTES',
  internalPort: 'INGRESS_INTERNAL_PORT',
  internalHost: 'INGRESS_INTERNAL_HOST',
  headersTimeoutMs: 'INGRESS_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'INGRESS_REQUEST_TIMEOUT_MS',
  bodyIdleTimeoutMs: 'INGRESS_BODY_IDLE_TIMEOUT_MS',
  keepAliveTimeoutMs: 'INGRESS_KEEP_ALIVE_TIMEOUT_MS',
  maxConnections: 'INGRESS_MAX_CONNECTIONS',
} as const;

/** Defaults and their reasons: docs/ingress.md, "Limits". */
export const ingressSchema = z.object({
  port: port.default(8080),
  host: z.string().default('0.0.0.0'),
  /** Comma-separated source addresses; empty allows any (the default outside production). */
  allowedIps: commaList(''),
  maxBodyBytes: positiveInt.default(1_048_576),
  /** /healthz and /metrics: loopback unless the orchestrator or Prometheus must reach it from outside. */
  internalPort: port.default(8081),
  internalHost: z.string().default('127.0.0.1'),
  headersTimeoutMs: positiveInt.default(10_000),
  requestTimeoutMs: positiveInt.default(30_000),
  bodyIdleTimeoutMs: positiveInt.default(5_000),
  keepAliveTimeoutMs: positiveInt.default(5_000),
  maxConnections: positiveInt.default(256),
});
export type IngressConfig = z.infer<typeof ingressSchema>;

/** The two addresses the spec says webhooks come from; production sets INGRESS_ALLOWED_IPS to these. */
export const BANK_WEBHOOK_IPS = ['84.201.171.246', '84.252.136.174'] as const;

export function loadIngressConfig(env: Env = process.env): IngressConfig {
  const c = parseSection(ingressSchema, env, INGRESS_VARS);
  // Checked here rather than in the schema so each message names the variables as set, with values.
  const v = INGRESS_VARS;
  const problems: string[] = [];
  if (c.headersTimeoutMs > c.requestTimeoutMs)
    problems.push(
      `${v.headersTimeoutMs} (${c.headersTimeoutMs}) must not exceed ${v.requestTimeoutMs} (${c.requestTimeoutMs}): the headers are part of the request`,
    );
  if (c.bodyIdleTimeoutMs >= c.requestTimeoutMs)
    problems.push(
      `${v.bodyIdleTimeoutMs} (${c.bodyIdleTimeoutMs}) must be below ${v.requestTimeoutMs} (${c.requestTimeoutMs}), or a stalled body never gets payrun's 408`,
    );
  if (c.internalPort !== 0 && c.internalPort === c.port)
    problems.push(
      `${v.internalPort} (${c.internalPort}) must differ from ${v.port}: health and metrics never share the bank-facing port`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  return c;
}

const payerSchema = z.object({
  payerType: z.enum(['legal', 'foreign']).default('legal'),
  payerTaxNumber: z.string().regex(/^(\d{10}|\d{12})$/, 'must be a 10- or 12-digit INN'),
  payerName: z.string().min(1, 'required: the payer name printed on receipts'),
});
/** Who pays: printed on every self-employed recipient's fiscal receipt. */
export type PayerConfig = z.infer<typeof payerSchema>;

export function loadPayerConfig(env: Env = process.env): PayerConfig {
  return parseSection(payerSchema, env, {
    payerType: 'PAYER_TYPE',
    payerTaxNumber: 'PAYER_TAX_NUMBER',
    payerName: 'PAYER_NAME',
  });
}

const webhookVerificationSchema = z.object({
  environment: bankEnvSchema.shape.environment,
  bankPublicKeyTest: z.string().optional(),
  bankPublicKeyTestFile: z.string().optional(),
  bankPublicKeyLive: z.string().optional(),
  bankPublicKeyLiveFile: z.string().optional(),
});

export interface WebhookVerificationConfig {
  environment: 'test' | 'live';
  /** The bank's public key for BANK_ENV: it verifies X-PARTNER-SIGN on webhooks. */
  bankPublicKeyPem: string;
}

/**
 * What the webhook ingress needs to trust a webhook, and nothing more: it never signs requests,
 * so it does not demand (or get to see) the partner private key or the bank base URL.
 */
export function loadWebhookVerificationConfig(env: Env = process.env): WebhookVerificationConfig {
  const verification = loadOptionalWebhookVerificationConfig(env);
  if (!verification.bankPublicKeyPem) {
    const suffix = verification.environment === 'live' ? 'LIVE' : 'TEST';
    throw new ConfigError([
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: required (the bank's webhook key)`,
    ]);
  }
  return { environment: verification.environment, bankPublicKeyPem: verification.bankPublicKeyPem };
}

/** The same variables, the key may be absent (the worker can do without it, reading session/status). */
export function loadOptionalWebhookVerificationConfig(
  env: Env = process.env,
): Omit<WebhookVerificationConfig, 'bankPublicKeyPem'> & { bankPublicKeyPem?: string } {
  const s = parseSection(webhookVerificationSchema, env, {
    environment: 'BANK_ENV',
    bankPublicKeyTest: 'BANK_PUBLIC_KEY_TEST',
    bankPublicKeyTestFile: 'BANK_PUBLIC_KEY_TEST_FILE',
    bankPublicKeyLive: 'BANK_PUBLIC_KEY_LIVE',
    bankPublicKeyLiveFile: 'BANK_PUBLIC_KEY_LIVE_FILE',
  });
  const bankPublicKeyPem =
    s.environment === 'live'
      ? readPem(s.bankPublicKeyLive, s.bankPublicKeyLiveFile)
      : readPem(s.bankPublicKeyTest, s.bankPublicKeyTestFile);
  return { environment: s.environment, ...(bankPublicKeyPem ? { bankPublicKeyPem } : {}) };
}

/** Parsed once at start-up: a bad key stops the process at once, naming the variable. */
export function parseBankPublicKey(verification: WebhookVerificationConfig): KeyObject {
  try {
    return createPublicKey(verification.bankPublicKeyPem);
  } catch (err) {
    const suffix = verification.environment === 'live' ? 'LIVE' : 'TEST';
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError([
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: not a public key in PEM (${reason})`,
    ]);
  }
}
