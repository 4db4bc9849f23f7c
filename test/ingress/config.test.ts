import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, KeyObject } from 'node:crypto';
import {
  ConfigError,
  loadIngressConfig,
  loadWebhookVerificationConfig,
  parseBankPublicKey,
} from '../../src/config';
import { DEFAULT_CONNECTION_LIMITS } from '../../src/ingress/server';

const PEM = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n';

describe('loadWebhookVerificationConfig', () => {
  it('takes the test key by default and needs no partner private key or base URL', () => {
    expect(loadWebhookVerificationConfig({ BANK_PUBLIC_KEY_TEST: PEM.replace(/\n/g, '\\n') })).toEqual({
      environment: 'test',
      bankPublicKeyPem: PEM,
    });
  });

  it('takes the live key from a file when BANK_ENV=live', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payrun-ingress-')), 'bank-live.pem');
    writeFileSync(file, PEM);
    expect(
      loadWebhookVerificationConfig({
        BANK_ENV: 'live',
        BANK_PUBLIC_KEY_TEST: 'not this',
        BANK_PUBLIC_KEY_LIVE_FILE: file,
      }),
    ).toEqual({ environment: 'live', bankPublicKeyPem: PEM });
  });

  it('names the missing variable for the chosen environment', () => {
    expect(() => loadWebhookVerificationConfig({ BANK_ENV: 'live', BANK_PUBLIC_KEY_TEST: PEM })).toThrow(
      new ConfigError([
        "BANK_PUBLIC_KEY_LIVE or BANK_PUBLIC_KEY_LIVE_FILE: required (the bank's webhook key)",
      ]),
    );
  });

  it('rejects an unknown BANK_ENV by name', () => {
    expect(() => loadWebhookVerificationConfig({ BANK_ENV: 'prod' })).toThrow(/BANK_ENV/);
  });
});

describe('loadIngressConfig', () => {
  it('defaults: webhooks on 8080 everywhere, health and metrics on loopback 8081, the documented limits', () => {
    const c = loadIngressConfig({});
    expect(c).toEqual({
      port: 8080,
      host: '0.0.0.0',
      allowedIps: [],
      maxBodyBytes: 1_048_576,
      internalPort: 8081,
      internalHost: '127.0.0.1',
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      bodyIdleTimeoutMs: 5_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 256,
    });
    // The server's own defaults (tests and the harness build it without config) are the same.
    expect(c).toMatchObject(DEFAULT_CONNECTION_LIMITS);
  });

  it('reads every limit from its variable', () => {
    expect(
      loadIngressConfig({
        INGRESS_INTERNAL_PORT: '9100',
        INGRESS_INTERNAL_HOST: '0.0.0.0',
        INGRESS_HEADERS_TIMEOUT_MS: '2000',
        INGRESS_REQUEST_TIMEOUT_MS: '8000',
        INGRESS_BODY_IDLE_TIMEOUT_MS: '1000',
        INGRESS_KEEP_ALIVE_TIMEOUT_MS: '65000',
        INGRESS_MAX_CONNECTIONS: '64',
      }),
    ).toMatchObject({
      internalPort: 9100,
      internalHost: '0.0.0.0',
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 8_000,
      bodyIdleTimeoutMs: 1_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 64,
    });
  });

  it('names each bad limit', () => {
    expect(() =>
      loadIngressConfig({ INGRESS_MAX_CONNECTIONS: '0', INGRESS_HEADERS_TIMEOUT_MS: 'soon' }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^INGRESS_HEADERS_TIMEOUT_MS: /),
          expect.stringMatching(/^INGRESS_MAX_CONNECTIONS: /),
        ],
      }),
    );
  });

  it('refuses limits that contradict each other, and a shared port, naming the variables', () => {
    expect(() =>
      loadIngressConfig({
        INGRESS_REQUEST_TIMEOUT_MS: '4000',
        INGRESS_PORT: '9000',
        INGRESS_INTERNAL_PORT: '9000',
      }),
    ).toThrow(
      new ConfigError([
        'INGRESS_HEADERS_TIMEOUT_MS (10000) must not exceed INGRESS_REQUEST_TIMEOUT_MS (4000): the headers are part of the request',
        "INGRESS_BODY_IDLE_TIMEOUT_MS (5000) must be below INGRESS_REQUEST_TIMEOUT_MS (4000), or a stalled body never gets payrun's 408",
        'INGRESS_INTERNAL_PORT (9000) must differ from INGRESS_PORT: health and metrics never share the bank-facing port',
      ]),
    );
  });
});

describe('parseBankPublicKey', () => {
  it('parses the PEM once into a KeyObject', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(parseBankPublicKey({ environment: 'test', bankPublicKeyPem: pem })).toBeInstanceOf(KeyObject);
  });

  it('names the variable when the key is not a public key', () => {
    expect(() => parseBankPublicKey({ environment: 'live', bankPublicKeyPem: PEM })).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        problems: [
          expect.stringMatching(/^BANK_PUBLIC_KEY_LIVE or BANK_PUBLIC_KEY_LIVE_FILE: not a public key/),
        ],
      }),
    );
  });
});
