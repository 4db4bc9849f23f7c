import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { ConfigError } from '../../src/config';
import { loadWorkerBankKey } from '../../src/worker/bank-key';

const publicPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();

describe('loadWorkerBankKey', () => {
  it('parses the key of the chosen environment once, and warns of nothing', () => {
    const warnings: string[] = [];
    const key = loadWorkerBankKey(
      { BANK_ENV: 'live', BANK_PUBLIC_KEY_LIVE: publicPem(), BANK_PUBLIC_KEY_TEST: 'not this' },
      (m) => warnings.push(m),
    );
    expect(key).toBeInstanceOf(KeyObject);
    expect(key?.type).toBe('public');
    expect(warnings).toEqual([]);
  });

  it('without a key the worker still starts and says payouts will read session/status', () => {
    const warnings: string[] = [];
    expect(loadWorkerBankKey({ BANK_PUBLIC_KEY_LIVE: publicPem() }, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(/^BANK_PUBLIC_KEY_TEST\(_FILE\) is not set: payouts read session\/status/),
    ]);
  });

  it('a key that is not a PEM public key stops the worker, naming the variable', () => {
    expect(() => loadWorkerBankKey({ BANK_ENV: 'live', BANK_PUBLIC_KEY_LIVE: 'garbage' }, () => {})).toThrow(
      ConfigError,
    );
    expect(() => loadWorkerBankKey({ BANK_ENV: 'live', BANK_PUBLIC_KEY_LIVE: 'garbage' }, () => {})).toThrow(
      /BANK_PUBLIC_KEY_LIVE or BANK_PUBLIC_KEY_LIVE_FILE: not a public key in PEM/,
    );
  });
});
