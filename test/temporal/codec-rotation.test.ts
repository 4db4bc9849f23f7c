import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec, KeyRing, payrunDataConverter } from '../../src/temporal';
import { acknowledgeSignal } from '../../workflows/connectivity-check/contract';
import { connectivityCheckWorkflow } from '../../workflows/connectivity-check/workflow';
import {
  connectClient,
  connectRawClient,
  startTestWorker,
  testSetup,
  workflowBundle,
} from '../harness/temporal';
import { replayRecordedHistories, saveHistory } from '../harness/replay';
import { TEST_ONLY_PAYLOAD_KEY_ID } from '../harness/test-only-payload-key';

/**
 * Key rotation: PAYRUN_PAYLOAD_KEYS goes from [A] to [B, A]. What A wrote stays readable and
 * replayable, a workflow started under A finishes under [B, A], new payloads are written with B;
 * a worker holding neither key fails the workflow task with a message naming the key id.
 */
const ProtoPayload = temporal.api.common.v1.Payload;
const run = randomUUID().slice(0, 8);
const keyEntry = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const A = keyEntry(`rot-a-${run}`);
const B = keyEntry(`rot-b-${run}`);
const C = keyEntry(`rot-c-${run}`);
const onlyA = testSetup({ PAYRUN_PAYLOAD_KEYS: A });
const rotated = testSetup({ PAYRUN_PAYLOAD_KEYS: `${B},${A}` });
const onlyC = testSetup({ PAYRUN_PAYLOAD_KEYS: C });
const keyIdOf = (p: { metadata?: Record<string, Uint8Array> | null } | null | undefined) =>
  Buffer.from(p?.metadata?.['encryption-key-id'] ?? []).toString();

it('reads, continues and replays what key A wrote once the keys are [B, A]; new payloads use B', async () => {
  const taskQueue = `rotation-${randomUUID()}`;
  const workflowId = `rotation-${randomUUID()}`;
  const a = await connectClient({ setup: onlyA });
  const workerA = await startTestWorker({ taskQueue, setup: onlyA });
  const handleA = await a.client.workflow.start(connectivityCheckWorkflow, {
    taskQueue,
    workflowId,
    args: [{ awaitAcknowledgement: true, acknowledgementTimeoutMs: 120_000 }],
  });
  // The activity result is in history (written with A) before the worker is replaced.
  for (;;) {
    const history = await handleA.fetchHistory();
    if (history.events?.some((e) => e.activityTaskCompletedEventAttributes)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await workerA.stop();
  await a.close();

  const b = await connectClient({ setup: rotated });
  const workerB = await startTestWorker({ taskQueue, setup: rotated });
  try {
    const handle = b.client.workflow.getHandle<typeof connectivityCheckWorkflow>(workflowId);
    await handle.signal(acknowledgeSignal, { by: 'rotation test' });
    const result = await handle.result();
    expect(result.acknowledgedBy).toBe('rotation test');

    const history = await handle.fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const signalled = history.events!.find((e) => e.workflowExecutionSignaledEventAttributes)!
      .workflowExecutionSignaledEventAttributes!.input!.payloads![0];
    const completed = history.events!.find((e) => e.workflowExecutionCompletedEventAttributes)!
      .workflowExecutionCompletedEventAttributes!.result!.payloads![0];
    expect([keyIdOf(started), keyIdOf(signalled), keyIdOf(completed)]).toEqual([
      `rot-a-${run}`,
      `rot-b-${run}`,
      `rot-b-${run}`,
    ]);

    // Replay with [B, A] decodes both keys' payloads and finds the workflow deterministic…
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(), dataConverter: payrunDataConverter(rotated.ring) },
      history,
      workflowId,
    );
    // …and B alone cannot read what A wrote, naming the key it lacks.
    await expect(new EncryptionCodec(new KeyRing([rotated.ring.current])).decode([started!])).rejects.toThrow(
      `key id "rot-a-${run}"`,
    );
  } finally {
    await workerB.stop();
    await b.close();
  }
});

it('a worker with neither key fails the workflow task, and the failure names the missing key id', async () => {
  const taskQueue = `wrong-key-${randomUUID()}`;
  const a = await connectClient({ setup: onlyA });
  const raw = await connectRawClient();
  const worker = await startTestWorker({ taskQueue, setup: onlyC });
  try {
    const handle = await a.client.workflow.start(connectivityCheckWorkflow, {
      taskQueue,
      workflowId: `wrong-key-${randomUUID()}`,
      args: [{ awaitAcknowledgement: false }],
    });
    let failure;
    for (;;) {
      const history = await raw.client.workflow.getHandle(handle.workflowId).fetchHistory();
      failure = history.events?.find((e) => e.workflowTaskFailedEventAttributes)
        ?.workflowTaskFailedEventAttributes?.failure;
      if (failure) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // The failure itself is encrypted (with the worker's key C), like every failure payrun writes.
    expect(failure.message).not.toContain('rot-a');
    const [attrs] = await new EncryptionCodec(onlyC.ring).decode([failure.encodedAttributes!]);
    const message = (JSON.parse(Buffer.from(attrs!.data!).toString()) as { message: string }).message;
    expect(message).toContain(`key id "rot-a-${run}"`);
    expect(message).toContain('PAYRUN_PAYLOAD_KEYS');
    expect(ProtoPayload.create(attrs!)).toBeDefined();
    await handle.terminate('test done');
  } finally {
    await worker.stop();
    await raw.close();
    await a.close();
  }
});

it('a history recorded encrypted with the test-only key replays through the replay helper', async () => {
  const taskQueue = `recording-${randomUUID()}`;
  const setup = testSetup();
  expect(setup.ring.current.id).toBe(TEST_ONLY_PAYLOAD_KEY_ID);
  const { client, close } = await connectClient({ setup });
  const worker = await startTestWorker({ taskQueue, setup });
  try {
    const handle = await client.workflow.start(connectivityCheckWorkflow, {
      taskQueue,
      workflowId: `recording-${randomUUID()}`,
      args: [{ awaitAcknowledgement: false }],
    });
    await handle.result();
    const dir = mkdtempSync(join(tmpdir(), 'payrun-recording-'));
    await saveHistory(dir, 'connectivity-check', handle);
    expect(readFileSync(join(dir, 'connectivity-check.json'), 'utf8')).toContain(
      Buffer.from('binary/encrypted').toString('base64'),
    );
    const outcomes = await replayRecordedHistories(dir);
    expect(outcomes.map((o) => [o.file, o.error])).toEqual([['connectivity-check.json', undefined]]);
  } finally {
    await worker.stop();
    await close();
  }
});
