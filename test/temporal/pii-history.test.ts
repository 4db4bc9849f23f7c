import { randomBytes, randomInt } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { isLuhnValid, isValidBankAccount } from '../../src/csv/checks';
import { EncryptionCodec } from '../../src/temporal';
import { createCodecServer, type ListeningCodecServer } from '../../src/temporal/codec-server';
import { taxpayerWorkflowId } from '../../src/temporal/person-ids';
import { lookupPayout } from '../../src/batch/services/lookup';
import { deliverToInbox } from '../../src/ingress/routing';
import { inboxQuery } from '../../workflows/webhook-inbox/contract';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { waitFor } from '../harness/wait';
import { batchHandle, batchTestPaths, dropAndSubmit, freshInn, uniquePrefix } from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { connectRawClient, testSetup } from '../harness/temporal';

/**
 * Personal data never reaches Temporal in plaintext: one row per payout method (self-employed and
 * not) goes through the real stack, and every history it produced, fetched raw from the server by a
 * client without the codec (what the UI and `temporal workflow show` serve to anyone), holds none
 * of the row's card, account, phone, INN, e-mail or names, plain or base64. The codec server gives
 * them back to an operator with the token, and nothing to anyone without it.
 */
const { History } = temporal.api.history.v1;
const ProtoPayload = temporal.api.common.v1.Payload;
const TOKEN = randomBytes(24).toString('hex');
const BIK = '044525225';

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
function card(): string {
  for (;;) {
    const c = `2200${digits(12)}`;
    if (isLuhnValid(c)) return c;
  }
}
function account(): string {
  for (;;) {
    const a = `40817810${digits(12)}`;
    if (isValidBankAccount(BIK, a)) return a;
  }
}
// Names no workflow code or fixture contains, so finding one means it leaked from this row.
const uniqueName = (stem: string) => `${stem}${'абвгдежзиклмнопрстуфхцчшэюя'[randomInt(27)]!.repeat(3)}`;

interface PiiRow {
  reference: string;
  lastName: string;
  firstName: string;
  middleName: string;
  inn: string;
  email: string;
  method: 'card' | 'bank_account' | 'fps';
  card?: string;
  account?: string;
  phone?: string;
  selfEmployed: boolean;
}

let stack: Stack;
let server: ListeningCodecServer;
beforeAll(async () => {
  stack = await startStack();
  server = await createCodecServer({
    codec: new EncryptionCodec(testSetup().ring),
    token: TOKEN,
    corsOrigins: [],
    namespace: 'default',
  }).listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await stack?.stop();
});

function csv(rows: PiiRow[]): Buffer {
  const header =
    'reference,last_name,first_name,middle_name,inn,email,method,card_number,bik,account,phone,bank_id,amount,currency,service_name,self_employed';
  const lines = rows.map((r) =>
    [
      r.reference,
      r.lastName,
      r.firstName,
      r.middleName,
      r.inn,
      r.email,
      r.method,
      r.card ?? '',
      r.account ? BIK : '',
      r.account ?? '',
      r.phone ?? '',
      r.phone ? '100000000111' : '',
      '1500.00',
      'RUB',
      'Design',
      r.selfEmployed ? 'yes' : 'no',
    ].join(','),
  );
  return Buffer.from([header, ...lines].join('\r\n') + '\r\n', 'utf8');
}

/** Every string a needle may hide as: itself, and the base64 of it at each of the three alignments. */
function forms(value: string): string[] {
  const out = [value];
  for (const offset of [0, 1, 2]) {
    const b64 = Buffer.concat([Buffer.alloc(offset), Buffer.from(value, 'utf8')]).toString('base64');
    // Drop the characters that depend on the neighbouring bytes; what is left is fixed by the value.
    const start = Math.ceil((offset * 4) / 3) + (offset ? 1 : 0);
    out.push(b64.slice(start, b64.length - 4));
  }
  return out.filter((f) => f.length >= 6);
}

/** All text of a raw history: its JSON form (bytes as base64) and every bytes field decoded as UTF-8. */
function haystack(history: ReturnType<typeof History.fromObject>): string {
  const decodedBytes: string[] = [];
  const walk = (v: unknown) => {
    if (v instanceof Uint8Array) decodedBytes.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(history);
  return (
    JSON.stringify(History.toObject(history, { bytes: String, longs: String, enums: String })) +
    decodedBytes.join('\n')
  );
}

function payloadsOf(history: ReturnType<typeof History.fromObject>): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    const maybe = v as { data?: unknown; metadata?: unknown } | null;
    if (maybe && maybe.data instanceof Uint8Array && maybe.metadata && typeof maybe.metadata === 'object')
      found.push(ProtoPayload.toObject(ProtoPayload.create(maybe as never), { bytes: String }));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(history);
  return found;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });

it('keeps every row’s personal data out of every history, and the codec server gives it back to operators only', async () => {
  const p = uniquePrefix();
  const row = (i: number, method: PiiRow['method'], selfEmployed: boolean): PiiRow => ({
    reference: `${p}-${i}`,
    lastName: uniqueName('Скрытова'),
    firstName: uniqueName('Тайна'),
    middleName: uniqueName('Секретовна'),
    inn: freshInn(randomInt(10_000_000)),
    email: `pii.${randomBytes(5).toString('hex')}@example.org`,
    method,
    selfEmployed,
    ...(method === 'card' ? { card: card() } : {}),
    ...(method === 'bank_account' ? { account: account() } : {}),
    ...(method === 'fps' ? { phone: `7912${digits(7)}` } : {}),
  });
  const rows = [
    row(1, 'card', true),
    row(2, 'card', false),
    row(3, 'bank_account', true),
    row(4, 'bank_account', false),
    row(5, 'fps', true),
    row(6, 'fps', false),
  ];
  const paths = batchTestPaths();
  const submitted = await dropAndSubmit(stack, paths, `${p}.csv`, csv(rows), { policy: 'partial' });
  expect(submitted.status).toBe('started');
  if (submitted.status !== 'started') return;
  expect(submitted.valid).toBe(rows.length);
  await batchHandle(stack, submitted.batchId).result();

  // A late return of a row's payout goes to the webhook inbox with the bank's session (recipient names
  // in it): the inbox's history must keep that encrypted too. (Late confirmation_payouts no longer go
  // there, so the test puts one event there itself, the way the ingress does.)
  const paid = await lookupPayout(stack.client, payoutWorkflowId(rows[0]!.reference));
  if (paid.kind !== 'paid') throw new Error(`row ${rows[0]!.reference} was not paid: ${paid.kind}`);
  const paidSession = paid.status.bank.sessionId!;
  const { session } = await stack.bank.sessions.status({ session_id: paidSession });
  await deliverToInbox(
    stack.client,
    { taskQueue: stack.taskQueue, workflowId: `inbox-${stack.taskQueue}` },
    {
      id: `pii-late-${paidSession}`,
      type: 'payment_refunded',
      sessionId: paidSession,
      receivedAt: new Date().toISOString(),
      session: session!,
      lateFor: [payoutWorkflowId(rows[0]!.reference)],
    },
  );
  await waitFor(async () => {
    const view = await stack.client.workflow
      .getHandle(`inbox-${stack.taskQueue}`)
      .query(inboxQuery)
      .catch(() => undefined);
    return !!view?.late.last.some((l) => l.sessionId === paidSession);
  });

  // Every execution the batch produced, every run of each (the batch may continue as new).
  const raw = await connectRawClient();
  try {
    const ids = [
      submitted.batchId,
      ...rows.map((r) => payoutWorkflowId(r.reference)),
      ...rows.filter((r) => r.selfEmployed).map((r) => taxpayerWorkflowId(r.inn, stack.taskQueue)),
      `inbox-${stack.taskQueue}`,
    ];
    const histories: { id: string; history: ReturnType<typeof History.fromObject> }[] = [];
    for (const id of ids) {
      const runs = [];
      for await (const e of raw.client.workflow.list({ query: `WorkflowId = "${id}"` })) runs.push(e.runId);
      // Visibility may lag the latest run; the current run is fetched by id in any case.
      const handles = [
        raw.client.workflow.getHandle(id),
        ...runs.map((r) => raw.client.workflow.getHandle(id, r)),
      ];
      for (const h of handles) histories.push({ id, history: History.fromObject(await h.fetchHistory()) });
    }
    expect(histories.length).toBeGreaterThanOrEqual(ids.length);

    for (const r of rows) {
      const needles = [
        r.lastName,
        r.firstName,
        r.middleName,
        r.inn,
        r.email,
        r.card,
        r.account,
        r.phone,
      ].filter((v): v is string => Boolean(v));
      for (const { id, history } of histories) {
        const text = haystack(history);
        for (const needle of needles)
          for (const form of forms(needle))
            if (text.includes(form))
              throw new Error(`history of ${id} holds "${needle}" of ${r.reference} (as "${form}")`);
      }
    }

    // The raw payloads are ciphertext: binary/encrypted with the key id.
    const payoutHistory = histories.find((h) => h.id === payoutWorkflowId(rows[0]!.reference))!.history;
    // Search attributes stay plain (the server indexes them) and pass through decode unchanged.
    const payloads = payloadsOf(payoutHistory);
    const start = payoutHistory.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(Buffer.from(start.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(start.metadata!['encryption-key-id']!).toString()).toBe(testSetup().ring.current.id);

    // An operator with the token reads them through the codec server…
    const startJson = ProtoPayload.toObject(ProtoPayload.create(start), { bytes: String });
    const ok = await post(
      '/decode',
      { payloads: [startJson, ...payloads] },
      { Authorization: `Bearer ${TOKEN}` },
    );
    expect(ok.status).toBe(200);
    const decoded = ((await ok.json()) as { payloads: Record<string, unknown>[] }).payloads;
    const input = defaultPayloadConverter.fromPayload(ProtoPayload.fromObject(decoded[0]!)) as {
      request: {
        method: { cardNumber: string };
        recipient: { lastName: string; taxReference: string; email: string };
      };
    };
    expect(input.request.method.cardNumber).toBe(rows[0]!.card);
    expect(input.request.recipient).toMatchObject({
      lastName: rows[0]!.lastName,
      taxReference: rows[0]!.inn,
      email: rows[0]!.email,
    });
    const fpsStart = histories.find((h) => h.id === payoutWorkflowId(rows[4]!.reference))!.history.events![0]!
      .workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const viaPath = await post(`/${TOKEN}/decode`, {
      payloads: [ProtoPayload.toObject(ProtoPayload.create(fpsStart), { bytes: String })],
    });
    expect(viaPath.status).toBe(200);
    const fpsInput = defaultPayloadConverter.fromPayload(
      ProtoPayload.fromObject(
        ((await viaPath.json()) as { payloads: Record<string, unknown>[] }).payloads[0]!,
      ),
    ) as { request: { method: { phone: string } } };
    expect(fpsInput.request.method.phone).toBe(rows[4]!.phone);
    // Everything else in the history decodes too (the failure and result payloads included).
    expect(decoded).toHaveLength(payloads.length + 1);
    expect(
      decoded.every(
        (d) =>
          Buffer.from(String((d.metadata as Record<string, string>).encoding), 'base64').toString() !==
          'binary/encrypted',
      ),
    ).toBe(true);

    // …and nobody without it.
    const refused = await post('/decode', { payloads: [startJson] });
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain(Buffer.from(rows[0]!.card!).toString('base64').slice(0, 12));
  } finally {
    await raw.close();
  }
});
