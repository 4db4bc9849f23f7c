import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { commaList, ConfigError, parseSection, port, positiveInt, type Env } from './core';

/** The HTTP servers payrun runs beside the worker: the webhook ingress and the codec server. */

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

/** The ingress's connection limits unless INGRESS_* says otherwise; docs/ingress.md, "Limits", says why each. */
export const DEFAULT_INGRESS_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
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
  headersTimeoutMs: positiveInt.default(DEFAULT_INGRESS_LIMITS.headersTimeoutMs),
  requestTimeoutMs: positiveInt.default(DEFAULT_INGRESS_LIMITS.requestTimeoutMs),
  bodyIdleTimeoutMs: positiveInt.default(DEFAULT_INGRESS_LIMITS.bodyIdleTimeoutMs),
  keepAliveTimeoutMs: positiveInt.default(DEFAULT_INGRESS_LIMITS.keepAliveTimeoutMs),
  maxConnections: positiveInt.default(DEFAULT_INGRESS_LIMITS.maxConnections),
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

const codecServerSchema = z.object({
  /** Loopback: operators reach it through an SSH tunnel, like the UI (docs/operations.md). */
  port: port.default(8888),
  host: z.string().default('127.0.0.1'),
  token: z
    .string()
    .min(24, 'must be at least 24 characters (make one with: openssl rand -hex 24)')
    .optional(),
  tokenFile: z.string().optional(),
  /** Comma-separated browser origins of the Temporal UI that may call the codec server (the dev UI's by default). */
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
