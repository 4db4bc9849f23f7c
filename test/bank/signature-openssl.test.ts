import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFor, makeKeyPair, startBankServer, type BankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/**
 * The signature format as a non-Node bank checks it: the openssl command line over the exact bytes
 * the stand-in bank received, with the partner public key.
 */

const keys = makeKeyPair();
let server: BankServer;
let dir: string;

beforeAll(async () => {
  server = await startBankServer(keys.publicKey);
  dir = mkdtempSync(join(tmpdir(), 'payrun-sign-'));
  writeFileSync(join(dir, 'pub.pem'), keys.publicPem);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function opensslVerify(body: Buffer, signatureB64: string) {
  writeFileSync(join(dir, 'body.bin'), body);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(signatureB64, 'base64'));
  return spawnSync(
    'openssl',
    ['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig.bin', 'body.bin'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
}

test('openssl dgst -sha256 -verify accepts the bytes and signature the bank received', async () => {
  const bank = clientFor(server, keys);
  // Cyrillic text makes sure the signed bytes are the UTF-8 bytes sent, not a re-encoding.
  await bank.sessions.initPayoutFiscalization({
    payment_method: f.fpsPayout,
    amount_details: f.amount,
    participant_details: f.participants,
    fiscalization_details: f.fiscalization,
  });
  await bank.close();
  const got = server.received[0]!;
  const sign = got.headers['x-partner-sign'] as string;
  const ok = opensslVerify(got.body, sign);
  expect(ok.stdout.trim()).toBe('Verified OK');
  expect(ok.status).toBe(0);

  const tampered = Buffer.from(got.body.toString('utf8').replace('10000', '10001'));
  const bad = opensslVerify(tampered, sign);
  expect(bad.status).not.toBe(0);
  expect(bad.stdout).toContain('Verification failure');
});

test('a GET (wallet balance) signs the empty body', async () => {
  const bank = clientFor(server, keys);
  await bank.wallets.balance('w_1');
  await bank.close();
  const got = server.received.at(-1)!;
  expect(got.method).toBe('GET');
  expect(got.body.length).toBe(0);
  expect(opensslVerify(Buffer.alloc(0), got.headers['x-partner-sign'] as string).status).toBe(0);
});
