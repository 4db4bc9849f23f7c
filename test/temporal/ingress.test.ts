import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { Writable } from 'node:stream';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { createRoutingActivities } from '../../activities/routing';
import { signBody } from '../../src/bank/signing';
import { createLogger } from '../../src/logger';
import { createIngress, type ListeningIngress } from '../../src/ingress';
import { sessionVisibilityQuery } from '../../src/routing/targets';
import {
  dismissOrphanSignal,
  inboxQuery,
  type InboxView,
  type WebhookInboxOptions,
} from '../../workflows/webhook-inbox/contract';
import { SESSION_ID } from '../../workflows/shared/search-attributes';
import { webhookInboxWorkflow } from '../../workflows/webhook-inbox/workflow';
import { connectClient, decodePayloadJson, startTestWorker, type TestWorker } from '../harness/temporal';

/**
 * The ingress against the real dev server and a real worker running the inbox and its reroute
 * activity. Targets are webhookInboxWorkflow instances under their own ids: a real workflow that
 * records every bankEvent it gets, so what reached it is read from its query and its history.
 */

const bankKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankPublicPem = bankKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const strangerKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const QUICK: WebhookInboxOptions = {
  rerouteWindowMs: 3_000,
  rerouteInitialIntervalMs: 200,
  rerouteMaxIntervalMs: 400,
};
const MAX_BODY = 16 * 1024;

let client: Client;
let closeClient: () => Promise<void>;
let worker: TestWorker;
let ingress: ListeningIngress;
let inboxId: string;
const logLines: string[] = [];

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  worker = await startTestWorker({ activities: createRoutingActivities(client) });
  inboxId = `inbox-${randomUUID()}`;
  ingress = await startIngress({});
});
afterAll(async () => {
  await ingress?.close();
  await worker?.stop();
  await closeClient?.();
});

function startIngress(overrides: Partial<Parameters<typeof createIngress>[0]>): Promise<ListeningIngress> {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  return createIngress({
    client,
    taskQueue: worker.taskQueue,
    bankPublicKeyPem: bankPublicPem,
    allowedIps: [],
    maxBodyBytes: MAX_BODY,
    inboxWorkflowId: inboxId,
    inboxInput: { options: QUICK },
    logger: createLogger('ingress-test', sink, 'info'),
    ...overrides,
  }).listen(0, '127.0.0.1');
}

const raw = (body: unknown) => Buffer.from(JSON.stringify(body));
const idOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function post(
  bytes: Buffer,
  opts: { key?: typeof bankKeys.privateKey | null; to?: ListeningIngress; path?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key !== null) headers['x-partner-sign'] = signBody(bytes, opts.key ?? bankKeys.privateKey);
  const res = await fetch(`${(opts.to ?? ingress).url}${opts.path ?? '/webhooks/bank'}`, {
    method: 'POST',
    headers,
    body: bytes,
  });
  return { status: res.status, body: (await res.json()) as { outcome: string; targets?: string[] } };
}

const sessionEvent = (sessionId: string, workflowId?: string, type = 'ready_to_confirm') => ({
  type,
  session: {
    id: sessionId,
    status: 'in_progress',
    next_action: 'confirm',
    payments: [
      {
        id: `po_${sessionId}`,
        status: 'pending',
        participant_details: { recipient: { full_name: 'Ivan Sensitive-Name' } },
        // The bank echoes metadata as it got it; here as a JSON string, which payrun must read too.
        ...(workflowId
          ? { metadata: JSON.stringify({ payrun: { workflow_id: workflowId, reference: 'R' } }) }
          : {}),
      },
    ],
  },
});

async function startTarget(
  workflowId: string,
  sessionId?: string,
): Promise<WorkflowHandle<typeof webhookInboxWorkflow>> {
  return client.workflow.start(webhookInboxWorkflow, {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ options: QUICK }],
    ...(sessionId ? { typedSearchAttributes: [{ key: SESSION_ID, value: sessionId }] } : {}),
  });
}

/** Ids of the bankEvent signals in a workflow's history: what Temporal durably holds. */
async function bankEventIds(workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const ids = (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'bankEvent')
    .map(async (a) => (await decodePayloadJson<{ id: string }>(a!.input!.payloads![0]!)).id);
  return Promise.all(ids);
}

/** Signals that arrive while a workflow task runs are buffered, not yet in the fetched history. */
const bankEventIdsOnceAtLeast = (workflowId: string, n = 1) =>
  eventually(
    () => bankEventIds(workflowId),
    (ids) => ids.length >= n,
  );

const inbox = (id = inboxId) => client.workflow.getHandle(id).query(inboxQuery);
const recordsOf = (view: InboxView, id: string) =>
  [
    ...view.pending,
    ...view.routed.last,
    ...view.orphaned.map((o) => o.event),
    ...view.topups,
    ...view.unknown,
  ].filter((r) => r.id === id).length;

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 150));
    last = await read();
  }
  return last;
}

describe('refusals', () => {
  it('a forged or missing signature gets 401 and signals nothing', async () => {
    const target = `payout-${randomUUID()}`;
    await startTarget(target);
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`, target));
    expect((await post(bytes, { key: strangerKeys.privateKey })).status).toBe(401);
    expect((await post(bytes, { key: null })).status).toBe(401);
    expect(await bankEventIds(target)).toEqual([]);
    // The same bytes, properly signed, do reach it: the refusal was the signature, not the target.
    expect(await post(bytes)).toEqual({
      status: 200,
      body: expect.objectContaining({ outcome: 'delivered' }),
    });
    expect(await bankEventIdsOnceAtLeast(target)).toEqual([idOf(bytes)]);
  });

  it('a body beyond maxBodyBytes gets 413, declared or streamed', async () => {
    const big = Buffer.alloc(MAX_BODY + 1, 'a');
    expect((await post(big)).status).toBe(413);
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(`${ingress.url}/webhooks/bank`, {
        method: 'POST',
        headers: { 'x-partner-sign': 'AAAA' },
      });
      req.on('response', (res) => resolve(res.statusCode!));
      req.on('error', reject);
      // Chunked, no Content-Length: the limit must hold while reading. The rest is never sent.
      req.write(Buffer.alloc(MAX_BODY, 'a'));
      req.write(Buffer.alloc(1024, 'a'));
    });
    expect(streamed).toBe(413);
  });

  it('a source outside allowedIps gets 403 even with a good signature; an allowed one passes', async () => {
    const target = `payout-${randomUUID()}`;
    await startTarget(target);
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`, target));
    const strict = await startIngress({ allowedIps: ['84.201.171.246', '84.252.136.174'] });
    const loopback = await startIngress({ allowedIps: ['84.201.171.246', '127.0.0.1'] });
    try {
      expect((await post(bytes, { to: strict })).status).toBe(403);
      expect(await bankEventIds(target)).toEqual([]);
      expect((await post(bytes, { to: loopback })).status).toBe(200);
      expect(await bankEventIdsOnceAtLeast(target)).toEqual([idOf(bytes)]);
    } finally {
      await strict.close();
      await loopback.close();
    }
  });

  it('signed non-JSON gets 400; unknown paths 404', async () => {
    expect((await post(Buffer.from('not json'))).status).toBe(400);
    expect((await fetch(`${ingress.url}/elsewhere`, { method: 'POST' })).status).toBe(404);
  });
});

describe('routing', () => {
  it('signals the running workflow named in the metadata, before answering 200', async () => {
    const target = `payout-${randomUUID()}`;
    await startTarget(target);
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`, target));
    expect(await post(bytes, { path: '/' })).toEqual({ status: 200, body: { outcome: 'delivered' } });
    expect(await bankEventIdsOnceAtLeast(target)).toEqual([idOf(bytes)]);
  });

  it('the same webhook twice: 200 both times, recorded once', async () => {
    const target = `payout-${randomUUID()}`;
    const handle = await startTarget(target);
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`, target, 'payment_finished'));
    expect((await post(bytes)).body.outcome).toBe('delivered');
    expect(await post(bytes)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    // Without the ingress's memory the second copy reaches the workflow, which keeps it once.
    const forgetful = await startIngress({ recentIdsCapacity: 0 });
    try {
      expect((await post(bytes, { to: forgetful })).body.outcome).toBe('delivered');
    } finally {
      await forgetful.close();
    }
    expect(await bankEventIdsOnceAtLeast(target, 2)).toEqual([idOf(bytes), idOf(bytes)]);
    const view = await handle.query(inboxQuery);
    expect(recordsOf(view, idOf(bytes))).toBe(1);
  });

  it('a confirmation_payout its payout does not wait for is answered without a signal; others are delivered', async () => {
    const finished = (sessionId: string, target: string, endsAtResult: boolean) => ({
      type: 'payment_finished',
      session: {
        id: sessionId,
        status: 'accepted',
        payments: [
          {
            id: `po_${sessionId}`,
            status: 'succeeded',
            metadata: {
              payrun: {
                workflow_id: target,
                reference: 'R',
                ...(endsAtResult ? { ends_at_result: true } : {}),
              },
            },
          },
        ],
      },
    });
    const confirmation = (sessionId: string) => ({
      type: 'confirmation_payout',
      event: 'Payout accepted Central Bank',
      event_date: '2025-05-14T10:00:00Z',
      session_id: sessionId,
    });
    // The payout ends at the result (its session's signed metadata says so): the confirmation is answered
    // 200 as late and never becomes a signal that would race the payout's last workflow task.
    const ending = `payout-${randomUUID()}`;
    const endingSession = `ps_${randomUUID()}`;
    await startTarget(ending);
    const result = raw(finished(endingSession, ending, true));
    expect((await post(result)).body.outcome).toBe('delivered');
    expect(await post(raw(confirmation(endingSession)))).toEqual({ status: 200, body: { outcome: 'late' } });
    // One that waits for the credit (no flag, as every session created before it) still gets its confirmation.
    const waiting = `payout-${randomUUID()}`;
    const waitingSession = `ps_${randomUUID()}`;
    await startTarget(waiting);
    const waitingResult = raw(finished(waitingSession, waiting, false));
    expect((await post(waitingResult)).body.outcome).toBe('delivered');
    const credit = raw(confirmation(waitingSession));
    expect((await post(credit)).body.outcome).toBe('delivered');
    expect(await bankEventIdsOnceAtLeast(waiting, 2)).toEqual([idOf(waitingResult), idOf(credit)]);
    // The ending payout's history holds its result and nothing after it.
    expect(await bankEventIds(ending)).toEqual([idOf(result)]);
  });

  it('finds a workflow by its PayrunSessionId when the metadata names none', async () => {
    const sessionId = `ps_${randomUUID()}`;
    const target = `payout-${randomUUID()}`;
    await startTarget(target, sessionId);
    await eventually(
      async () => (await client.workflow.count(sessionVisibilityQuery(sessionId))).count,
      (n) => n === 1,
    );
    const bytes = raw(sessionEvent(sessionId));
    expect(await post(bytes)).toEqual({ status: 200, body: { outcome: 'delivered' } });
    expect(await bankEventIdsOnceAtLeast(target)).toEqual([idOf(bytes)]);
  });

  it('an event for an unknown session goes to the inbox and, once its reroute window closes, to orphaned', async () => {
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`));
    expect(await post(bytes)).toEqual({ status: 200, body: { outcome: 'inbox' } });
    expect(await bankEventIdsOnceAtLeast(inboxId)).toContain(idOf(bytes));
    const view = await eventually(inbox, (v) => v.orphaned.some((o) => o.event.id === idOf(bytes)));
    expect(view.pending.map((p) => p.id)).not.toContain(idOf(bytes));
    expect(view.orphaned.find((o) => o.event.id === idOf(bytes))?.reason).toMatch(
      /no running workflow took it/,
    );

    await client.workflow.getHandle(inboxId).signal(dismissOrphanSignal, { id: idOf(bytes), by: 'jest' });
    const after = await eventually(inbox, (v) => !v.orphaned.some((o) => o.event.id === idOf(bytes)));
    expect(after.dismissedCount).toBeGreaterThanOrEqual(1);
  });

  it('an event that arrives before its workflow starts is rerouted to it once it runs', async () => {
    const target = `payout-${randomUUID()}`;
    const bytes = raw(sessionEvent(`ps_${randomUUID()}`, target, 'payment_finished'));
    expect(await post(bytes)).toEqual({ status: 200, body: { outcome: 'inbox' } });
    await new Promise((r) => setTimeout(r, 1_000));
    await startTarget(target);
    const view = await eventually(inbox, (v) => v.routed.last.some((r) => r.id === idOf(bytes)));
    expect(view.routed.last.find((r) => r.id === idOf(bytes))?.delivered).toEqual([target]);
    expect(view.orphaned.map((o) => o.event.id)).not.toContain(idOf(bytes));
    expect(await bankEventIdsOnceAtLeast(target)).toEqual([idOf(bytes)]);
  });

  it('nominal_topup and unknown event types are kept by the inbox', async () => {
    const topup = {
      inn: '7707083893',
      account_number: '40702810000000000001',
      account_balance: 5_150_000,
      doc_id: `d-${randomUUID()}`,
      doc_num: 17,
      amount: 150_000,
      currency: 'RUB',
      paymentDate: '2025-05-14T10:00:00+03:00',
      contragent_account_number: '40702810000000000009',
      contragent_bank_bik: '044525225',
    };
    const topupBytes = raw(topup);
    const oddBytes = raw({ type: 'brand_new_event', nonce: randomUUID() });
    expect(await post(topupBytes)).toEqual({ status: 200, body: { outcome: 'inbox' } });
    expect(await post(oddBytes)).toEqual({ status: 200, body: { outcome: 'inbox' } });
    const view = await eventually(inbox, (v) => v.unknown.some((u) => u.id === idOf(oddBytes)));
    expect(view.topups.find((t) => t.id === idOf(topupBytes))).toEqual(
      expect.objectContaining({
        amount: 150_000,
        accountBalance: 5_150_000,
        paymentDate: '2025-05-14T10:00:00+03:00',
        docNum: '17',
      }),
    );
    expect(view.unknown.find((u) => u.id === idOf(oddBytes))?.body).toEqual(JSON.parse(oddBytes.toString()));
  });
});

describe('operations', () => {
  it('healthz answers 200 while Temporal does; metrics count outcomes and signals', async () => {
    const health = await fetch(`${ingress.internalUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual(
      expect.objectContaining({ status: 'ok', temporal: expect.objectContaining({ reachable: true }) }),
    );
    const text = await (await fetch(`${ingress.internalUrl}/metrics`)).text();
    const count = (name: string) =>
      Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(count('payrun_ingress_requests_total{outcome="unauthorized"}')).toBeGreaterThanOrEqual(2);
    expect(count('payrun_ingress_requests_total{outcome="too_large"}')).toBeGreaterThanOrEqual(2);
    expect(count('payrun_ingress_requests_total{outcome="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(count('payrun_ingress_signals_total{to="workflow"}')).toBeGreaterThanOrEqual(1);
    expect(count('payrun_ingress_request_duration_seconds_count')).toBeGreaterThanOrEqual(5);
  });

  it('logs event type, session and outcome, never the body', () => {
    const lines = logLines.join('');
    expect(lines).toMatch(/"eventType":"ready_to_confirm"/);
    expect(lines).toMatch(/"outcome":"inbox"/);
    expect(lines).not.toMatch(/Sensitive-Name/);
    expect(lines).not.toMatch(/40702810000000000001/);
  });
});
