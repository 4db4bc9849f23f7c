import { createBankClient } from '../../src/bank';
import { loadBankConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { makeKeyPair, startBankServer } from './helpers/bank-server';

/** One setting (BANK_ENV) picks the base URL and bank key; createBankClient speaks to that address. */

test.each(['test', 'live'] as const)('BANK_ENV=%s → the client calls that environment only', async (env) => {
  const partner = makeKeyPair();
  const testBank = await startBankServer(partner.publicKey);
  const liveBank = await startBankServer(partner.publicKey);
  const config = loadBankConfig({
    BANK_ENV: env,
    BANK_BASE_URL_TEST: testBank.url,
    BANK_BASE_URL_LIVE: liveBank.url,
    BANK_PUBLIC_KEY_TEST: makeKeyPair().publicPem,
    BANK_PUBLIC_KEY_LIVE: makeKeyPair().publicPem,
    PARTNER_PROJECT: 'proj-cfg',
    PARTNER_SUBMERCHANT: 'sub-cfg',
    PARTNER_PRIVATE_KEY: partner.privatePem.replace(/\n/g, '\\n'),
    BANK_API_VERSION: '2',
  });
  const bank = createBankClient(config, createLogger('bank-test', { write: () => true }));
  await bank.sessions.status({ session_id: 'ps_1' });
  await bank.close();
  await testBank.close();
  await liveBank.close();
  const [hit, miss] = env === 'test' ? [testBank, liveBank] : [liveBank, testBank];
  expect(miss.received).toHaveLength(0);
  expect(hit.received).toHaveLength(1);
  expect(hit.received[0]).toMatchObject({ url: '/api/v2/session/status', signatureValid: true });
  expect(hit.received[0]!.headers).toMatchObject({
    'x-partner-project': 'proj-cfg',
    'x-partner-submerchant': 'sub-cfg',
  });
});
