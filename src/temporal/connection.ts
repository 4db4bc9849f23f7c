import { readFileSync } from 'node:fs';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type TLSConfig,
} from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import {
  ConfigError,
  loadTemporalConfig,
  temporalSecurityProblems,
  type Env,
  type TemporalConfig,
} from '../config';
import { createLogger } from '../logger';
import type { KeyRing } from './codec';
import { payrunDataConverter } from './converter';
import { loadKeyRing } from './keys';
import { CallDrain, closeAfterCalls } from './call-drain';

const log = createLogger('temporal');

/** Everything a process needs to talk to Temporal: where, how securely, and the payload keys. */
export interface TemporalSetup {
  config: TemporalConfig;
  ring: KeyRing;
}

/** Reads TEMPORAL_* and the payload keys at once; a production process without keys stops here. */
export function loadTemporalSetup(env?: Env): TemporalSetup {
  return { config: loadTemporalConfig(env), ring: loadKeyRing(env) };
}

function readVar(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError([`${variable}: cannot read ${file} (${(err as Error).message})`]);
  }
}

/**
 * The SDK's own security options (they mean the same to Connection and NativeConnection): TLS with
 * a private CA, mTLS with a client certificate, a server name override, an API key. Nothing set:
 * plaintext, which is right for the loopback dev server and the compose network only.
 */
export function securityOptions(t: TemporalConfig): { tls?: TLSConfig | false; apiKey?: string } {
  // loadTemporalConfig refuses these already; a config built by hand (tests, benches) is checked here.
  const problems = temporalSecurityProblems(t);
  if (problems.length) throw new ConfigError(problems);
  const anyTlsSetting = Boolean(t.tlsCaFile || t.tlsCertFile || t.tlsKeyFile || t.tlsServerName);
  const apiKey =
    t.apiKey ??
    (t.apiKeyFile ? readVar('TEMPORAL_API_KEY_FILE', t.apiKeyFile).toString('utf8').trim() : undefined);
  if (t.tls === 'false') return { tls: false, ...(apiKey ? { apiKey } : {}) };
  if (!anyTlsSetting && t.tls !== 'true') return apiKey ? { apiKey } : {};
  return {
    tls: {
      ...(t.tlsServerName ? { serverNameOverride: t.tlsServerName } : {}),
      ...(t.tlsCaFile ? { serverRootCACertificate: readVar('TEMPORAL_TLS_CA_FILE', t.tlsCaFile) } : {}),
      ...(t.tlsCertFile && t.tlsKeyFile
        ? {
            clientCertPair: {
              crt: readVar('TEMPORAL_TLS_CERT_FILE', t.tlsCertFile),
              key: readVar('TEMPORAL_TLS_KEY_FILE', t.tlsKeyFile),
            },
          }
        : {}),
    },
    ...(apiKey ? { apiKey } : {}),
  };
}

/**
 * Connects with patience: in compose the worker and ingress may start before the server answers.
 * `timeoutMs: 0` tries once (the CLI: an operator wants the error now).
 */
export async function connectWithRetry<T>(
  address: string,
  connect: () => Promise<T>,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      if (err instanceof ConfigError || Date.now() > deadline) throw err;
      log.warn({ address, attempt, err: String(err) }, 'Temporal not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * attempt)));
    }
  }
}

export interface ConnectedClient {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** How long to keep trying (default 0: once). */
  retryForMs?: number;
  /**
   * Replaces the encrypting converter. Only the benchmark's no-codec baseline uses it; every
   * process of payrun itself goes through payrunDataConverter.
   */
  dataConverterOverride?: DataConverter;
  /**
   * Tries per call on a retryable gRPC error (the SDK's default is 10, about 20 s of back-off when the
   * server is down). The console asks for fewer: a person waiting for a page is told Temporal is down.
   */
  grpcAttempts?: number;
}

/** A Temporal client with payrun's DataConverter (encryption), TLS and API key. */
export async function connectClient(
  setup: TemporalSetup,
  opts: ConnectOptions = {},
): Promise<ConnectedClient> {
  const { config } = setup;
  const security = securityOptions(config);
  const drain = new CallDrain();
  const retry = makeGrpcRetryInterceptor(
    defaultGrpcRetryOptions(opts.grpcAttempts ? { maxAttempts: opts.grpcAttempts } : {}),
  );
  const connection = await connectWithRetry(
    config.address,
    () =>
      Connection.connect({
        address: config.address,
        ...security,
        // Outside the retry interceptor, so a call counts until its last retry ends.
        interceptors: [drain.interceptor, retry],
      }),
    opts.retryForMs ?? 0,
  );
  const client = new Client({
    connection,
    namespace: config.namespace,
    dataConverter: opts.dataConverterOverride ?? payrunDataConverter(setup.ring),
  });
  const close = async () => {
    if (!(await closeAfterCalls(connection, drain)))
      log.warn({ pending: drain.pending }, 'closed the Temporal connection with calls still in flight');
  };
  return { client, connection, close };
}
