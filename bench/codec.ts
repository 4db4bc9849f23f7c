/**
 * The payload codec alone: encode + decode of payloads shaped like payrun's (a payout input ~0.6 KB,
 * a 500-row batch chunk ~190 KB), microseconds each. Usage:
 *
 *   node -r ./test/harness/ts-register.js bench/codec.ts [iterations=20000]
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec, KeyRing } from '../src/temporal';

const payout = {
  request: {
    reference: 'demo-20261122-001',
    recipient: {
      lastName: 'Петров',
      firstName: 'Сергей',
      middleName: 'Иванович',
      taxReference: '770700000190',
    },
    method: { type: 'card', cardNumber: '4111111111111111' },
    amount: 113707,
    currency: 'rub',
    serviceName: 'Вёрстка',
    selfEmployed: true,
  },
  options: { pollAfterMs: 5000 },
  batchId: 'batch-6048236898cd81e9',
};

async function measure(name: string, value: unknown, iterations: number): Promise<void> {
  const codec = new EncryptionCodec(new KeyRing([{ id: 'bench', key: randomBytes(32) }]));
  const payload = defaultPayloadConverter.toPayload(value);
  for (let i = 0; i < Math.min(1000, iterations); i++) await codec.decode(await codec.encode([payload]));
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await codec.decode(await codec.encode([payload]));
  const wallUs = Number(process.hrtime.bigint() - started) / 1000 / iterations;
  const used = process.cpuUsage(cpu);
  const cpuUs = (used.user + used.system) / iterations;
  console.log(
    JSON.stringify({
      payload: name,
      bytes: payload.data!.length,
      encodeDecodeCpuUs: +cpuUs.toFixed(1),
      wallUs: +wallUs.toFixed(1),
    }),
  );
}

async function main(): Promise<void> {
  const iterations = Number(process.argv[2] ?? 20_000);
  await measure('payout input', payout, iterations);
  const chunk = Array.from({ length: 500 }, (_, row) => ({ row, request: payout.request }));
  await measure('500-row chunk', chunk, Math.max(1, Math.floor(iterations / 100)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
