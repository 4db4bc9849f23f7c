import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { signBody } from '../../src/bank/signing';
import { startDevServer, type RunningDevServer } from '../../src/devserver';
import { createIngress, type ListeningIngress } from '../../src/ingress';
import { createLogger } from '../../src/logger';
import { webhookInboxWorkflow } from '../../workflows/webhook-inbox/workflow';

/**
 * Temporal down while the bank calls: the ingress must answer 503 (so the bank resends), never
 * 200, and deliver once Temporal is back. This file runs its own dev server so it can stop it.
 */

const bankKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankPublicPem = bankKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const dbFile = join(mkdtempSync(join(tmpdir(), 'payrun-ingress-outage-')), 'temporal.db');

let server: RunningDevServer | undefined;
let connection: Connection;
let ingress: ListeningIngress;
const logged: { outcome?: string; durationMs?: number }[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logged.push(JSON.parse(chunk.toString()) as { outcome?: string; durationMs?: number });
    done();
  },
});

afterAll(async () => {
  await ingress?.close();
  await connection?.close();
  await server?.stop();
});

async function post(bytes: Buffer): Promise<number> {
  const res = await fetch(`${ingress.url}/webhooks/bank`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-partner-sign': signBody(bytes, bankKeys.privateKey) },
    body: bytes,
  });
  await res.arrayBuffer();
  return res.status;
}

it('answers 503 while Temporal is down and delivers when the bank resends after it is back', async () => {
  server = await startDevServer({ dbFile });
  const port = server.port;
  connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  ingress = await createIngress({
    client,
    taskQueue: `outage-${randomUUID()}`,
    bankPublicKeyPem: bankPublicPem,
    allowedIps: [],
    maxBodyBytes: 65_536,
    temporalTimeoutMs: 3_000,
    healthTimeoutMs: 1_000,
    logger: createLogger('ingress-outage', logSink, 'info'),
  }).listen(0, '127.0.0.1');

  // A running target; no worker is needed for a signal to land in its history.
  const target = `payout-${randomUUID()}`;
  await client.workflow.start(webhookInboxWorkflow, {
    workflowId: target,
    taskQueue: 'nobody-polls',
    args: [{}],
  });
  const bytes = Buffer.from(
    JSON.stringify({
      type: 'payment_finished',
      session: {
        id: `ps_${randomUUID()}`,
        status: 'accepted',
        payments: [
          { id: 'po_1', status: 'succeeded', metadata: { payrun: { workflow_id: target, reference: 'R' } } },
        ],
      },
    }),
  );

  await server.stop();
  const before = Date.now();
  expect(await post(bytes)).toBe(503);
  // Bounded by temporalTimeoutMs (3 s), not by the SDK's retries: unbounded, a signal to a stopped
  // server failed only after 19.5 s here; bounded it took 3.6 s with both cores busy. 8 s keeps that
  // difference while leaving room for a loaded two-core machine (5.8 s was seen under the full suite).
  expect(Date.now() - before).toBeLessThan(8_000);
  expect((await fetch(`${ingress.internalUrl}/healthz`)).status).toBe(503);

  server = await startDevServer({ dbFile, port });
  // The bank resends until it gets a 200; so does this test, for at most a minute.
  const statuses: number[] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && statuses.at(-1) !== 200) {
    statuses.push(await post(bytes));
    if (statuses.at(-1) !== 200) await new Promise((r) => setTimeout(r, 500));
  }
  expect(statuses.at(-1)).toBe(200);
  expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);

  const id = createHash('sha256').update(bytes).digest('hex');
  const history = await client.workflow.getHandle(target).fetchHistory();
  const delivered = (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'bankEvent')
    .map((a) => (JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString()) as { id: string }).id);
  expect(delivered).toContain(id);
  expect((await fetch(`${ingress.internalUrl}/healthz`)).status).toBe(200);
  // One log line per webhook: the refusal while down, then each resend's outcome.
  const outcomes = ['unavailable', ...statuses.map((s) => (s === 200 ? 'delivered' : 'unavailable'))];
  expect(logged.map((l) => l.outcome).filter(Boolean)).toEqual(outcomes);
});
