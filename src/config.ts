import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The one place environment variables are read. Each part of payrun loads the sections it needs,
 * so a worker does not demand the ingress port and the sandbox does not demand the partner key.
 * Every missing or invalid variable is reported at once, by name.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

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
const positiveInt = z.coerce.number().int().positive();

export const temporalSchema = z.object({
  address: z.string().default('localhost:7233'),
  namespace: z.string().default('default'),
  taskQueue: z.string().default('payrun'),
  npdTaskQueue: z.string().default('payrun-npd'),
});
export type TemporalConfig = z.infer<typeof temporalSchema>;

export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  return parseSection(temporalSchema, env, {
    address: 'TEMPORAL_ADDRESS',
    namespace: 'TEMPORAL_NAMESPACE',
    taskQueue: 'PAYRUN_TASK_QUEUE',
    npdTaskQueue: 'PAYRUN_NPD_TASK_QUEUE',
  });
}

const bankEnvSchema = z.object({
  environment: z.enum(['test', 'live']).default('test'),
  baseUrlTest: z.url().optional(),
  baseUrlLive: z.url().optional(),
  bankPublicKeyTest: z.string().optional(),
  bankPublicKeyTestFile: z.string().optional(),
  bankPublicKeyLive: z.string().optional(),
  bankPublicKeyLiveFile: z.string().optional(),
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
  bankPublicKeyPem: string;
  project: string;
  submerchant?: string;
  privateKeyPem: string;
  apiVersion: 1 | 2;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Test and live are two base URLs and two bank keys; BANK_ENV picks one pair. */
export function loadBankConfig(env: Env = process.env): BankConfig {
  const s = parseSection(bankEnvSchema, env, {
    environment: 'BANK_ENV',
    baseUrlTest: 'BANK_BASE_URL_TEST',
    baseUrlLive: 'BANK_BASE_URL_LIVE',
    bankPublicKeyTest: 'BANK_PUBLIC_KEY_TEST',
    bankPublicKeyTestFile: 'BANK_PUBLIC_KEY_TEST_FILE',
    bankPublicKeyLive: 'BANK_PUBLIC_KEY_LIVE',
    bankPublicKeyLiveFile: 'BANK_PUBLIC_KEY_LIVE_FILE',
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
  const bankPublicKeyPem = live
    ? readPem(s.bankPublicKeyLive, s.bankPublicKeyLiveFile)
    : readPem(s.bankPublicKeyTest, s.bankPublicKeyTestFile);
  if (!bankPublicKeyPem) {
    const suffix = live ? 'LIVE' : 'TEST';
    problems.push(
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: required (the bank's webhook key)`,
    );
  }
  const privateKeyPem = readPem(s.privateKey, s.privateKeyFile);
  if (!privateKeyPem)
    problems.push('PARTNER_PRIVATE_KEY or PARTNER_PRIVATE_KEY_FILE: required (signs requests)');
  if (problems.length) throw new ConfigError(problems);
  return {
    environment: s.environment,
    baseUrl: baseUrl!,
    bankPublicKeyPem: bankPublicKeyPem!,
    project: s.project,
    submerchant: s.submerchant,
    privateKeyPem: privateKeyPem!,
    apiVersion: s.apiVersion === '2' ? 2 : 1,
    connectTimeoutMs: s.connectTimeoutMs,
    requestTimeoutMs: s.requestTimeoutMs,
  };
}

export const ingressSchema = z.object({
  port: port.default(8080),
  host: z.string().default('0.0.0.0'),
  /** Comma-separated source addresses; empty allows any (the default outside production). */
  allowedIps: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  maxBodyBytes: positiveInt.default(1_048_576),
});
export type IngressConfig = z.infer<typeof ingressSchema>;

/** The two addresses the spec says webhooks come from; production sets INGRESS_ALLOWED_IPS to these. */
export const BANK_WEBHOOK_IPS = ['84.201.171.246', '84.252.136.174'] as const;

export function loadIngressConfig(env: Env = process.env): IngressConfig {
  return parseSection(ingressSchema, env, {
    port: 'INGRESS_PORT',
    host: 'INGRESS_HOST',
    allowedIps: 'INGRESS_ALLOWED_IPS',
    maxBodyBytes: 'INGRESS_MAX_BODY_BYTES',
  });
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
  bankPublicKeyTest: bankEnvSchema.shape.bankPublicKeyTest,
  bankPublicKeyTestFile: bankEnvSchema.shape.bankPublicKeyTestFile,
  bankPublicKeyLive: bankEnvSchema.shape.bankPublicKeyLive,
  bankPublicKeyLiveFile: bankEnvSchema.shape.bankPublicKeyLiveFile,
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
  const s = parseSection(webhookVerificationSchema, env, {
    environment: 'BANK_ENV',
    bankPublicKeyTest: 'BANK_PUBLIC_KEY_TEST',
    bankPublicKeyTestFile: 'BANK_PUBLIC_KEY_TEST_FILE',
    bankPublicKeyLive: 'BANK_PUBLIC_KEY_LIVE',
    bankPublicKeyLiveFile: 'BANK_PUBLIC_KEY_LIVE_FILE',
  });
  const live = s.environment === 'live';
  const bankPublicKeyPem = live
    ? readPem(s.bankPublicKeyLive, s.bankPublicKeyLiveFile)
    : readPem(s.bankPublicKeyTest, s.bankPublicKeyTestFile);
  if (!bankPublicKeyPem) {
    const suffix = live ? 'LIVE' : 'TEST';
    throw new ConfigError([
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: required (the bank's webhook key)`,
    ]);
  }
  return { environment: s.environment, bankPublicKeyPem };
}
