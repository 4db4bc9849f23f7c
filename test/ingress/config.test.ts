import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadWebhookVerificationConfig } from '../../src/config';

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
