import { ConfigError, loadBankConfig, loadPayerConfig, loadTemporalConfig } from '../src/config';

describe('configuration', () => {
  it('has working defaults for Temporal', () => {
    expect(loadTemporalConfig({})).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'payrun',
    });
  });

  it('names every missing bank variable at once', () => {
    let error: ConfigError | undefined;
    try {
      loadBankConfig({ BANK_ENV: 'live' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([`PARTNER_PROJECT: required but not set`]);
    try {
      loadBankConfig({ BANK_ENV: 'live', PARTNER_PROJECT: 'p1' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error!.problems).toEqual([
      'BANK_BASE_URL_LIVE: required when BANK_ENV=live',
      'PARTNER_PRIVATE_KEY or PARTNER_PRIVATE_KEY_FILE: required (signs requests)',
    ]);
  });

  it('reports invalid values with the rule', () => {
    expect(() => loadBankConfig({ PARTNER_PROJECT: 'p', BANK_ENV: 'prod' })).toThrow(/BANK_ENV: /);
    expect(() => loadPayerConfig({ PAYER_TAX_NUMBER: '123', PAYER_NAME: 'x' })).toThrow(
      /PAYER_TAX_NUMBER: must be a 10- or 12-digit INN/,
    );
  });

  it('picks the test or live URL by BANK_ENV, with PEMs given inline with \\n; the webhook key is not its business', () => {
    const env = {
      PARTNER_PROJECT: 'p1',
      PARTNER_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nAAA\\n-----END PRIVATE KEY-----',
      BANK_BASE_URL_TEST: 'http://127.0.0.1:8090',
      BANK_PUBLIC_KEY_TEST: 'TESTKEY',
      BANK_BASE_URL_LIVE: 'https://bank.example',
      BANK_PUBLIC_KEY_LIVE: 'LIVEKEY',
    };
    expect(loadBankConfig(env)).toMatchObject({
      baseUrl: 'http://127.0.0.1:8090',
      apiVersion: 1,
    });
    expect(loadBankConfig(env)).not.toHaveProperty('bankPublicKeyPem');
    const live = loadBankConfig({ ...env, BANK_ENV: 'live', BANK_API_VERSION: '2' });
    expect(live).toMatchObject({
      baseUrl: 'https://bank.example',
      apiVersion: 2,
    });
    expect(live.privateKeyPem.split('\n')).toHaveLength(3);
  });
});
