import { generateKeyPairSync } from 'node:crypto';
import pino from 'pino';
import { startSandbox, type RunningSandbox } from '../src/sandbox';

/** A silent sandbox with one partner project `bench` and that partner's fresh key pair (PEM). */
export async function startQuietSandbox(): Promise<{
  sb: RunningSandbox;
  keys: { publicKey: string; privateKey: string };
}> {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const sb = await startSandbox({
    projects: [{ id: 'bench', publicKeyPem: keys.publicKey }],
    logger: pino({ level: 'silent' }),
  });
  return { sb, keys };
}
