import { createServer } from 'node:net';
import {
  BankAbortError,
  BankApiError,
  BankResponseValidationError,
  BankTransportError,
  isRetryable,
  type BankClient,
} from '../../src/bank';
import { createLogger } from '../../src/logger';
import { clientFor, makeKeyPair, startBankServer, type BankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/** Error classes and their retry verdicts, and the client's own bounded retry, over real HTTP. */

const keys = makeKeyPair();
let server: BankServer;
let bank: BankClient;
const payout = { payment_method: f.cardPayout, amount_details: f.amount };

beforeAll(async () => {
  server = await startBankServer(keys.publicKey);
  bank = clientFor(server, keys, { maxRetries: 2 });
});
afterAll(async () => {
  await bank.close();
  await server.close();
});
beforeEach(() => {
  server.received.length = 0;
  server.reply(() => ({ json: { status: 'ok', session: { id: 'ps_1', status: 'in_progress' } } }));
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
const errorEnvelope = (code: string) => ({
  status: 'error',
  error: { code, description: `${code} happened` },
});

describe('bank error codes (envelope read first, whatever the HTTP status)', () => {
  test.each([
    ['internal_error', 500, true],
    ['unexpected_error', 200, true],
    ['idempotency_key_already_exists', 409, true],
    ['invalid_request', 400, false],
    ['invalid_request', 500, false],
    ['idempotency_key_params_mismatch', 409, false],
    ['idempotency_key_not_supported', 400, false],
    ['confirm_timeout', 400, false],
    ['declined_by_issuer_bank', 200, false],
    ['wallet_not_found', 404, false],
    ['some_code_not_in_the_spec', 400, false],
    ['some_code_not_in_the_spec', 503, true],
    ['some_code_not_in_the_spec', 429, true],
  ] as const)('%s with HTTP %s → retryable %s', async (code, status, retryable) => {
    server.reply(() => ({ status, json: errorEnvelope(code) }));
    const err = await failure(bank.sessions.confirm({ session_id: 'ps_1' }));
    expect(err).toBeInstanceOf(BankApiError);
    expect(err).toMatchObject({ code, httpStatus: status, description: `${code} happened`, retryable });
    expect(isRetryable(err)).toBe(retryable);
  });
});

describe('transport failures', () => {
  test.each([
    [500, '<html>oops</html>', true],
    [502, '', true],
    [429, 'Too Many Requests', true],
    [404, 'Not Found', false],
    [401, '{"message":"no"}', false],
  ] as const)('HTTP %s without an envelope → http_status, retryable %s', async (status, raw, retryable) => {
    server.reply(() => ({ status, raw }));
    const err = await failure(bank.sessions.confirm({ session_id: 'ps_1' }));
    expect(err).toBeInstanceOf(BankTransportError);
    expect(err).toMatchObject({ kind: 'http_status', httpStatus: status, retryable });
  });

  test('HTTP 200 with a non-JSON body → non_json, retryable', async () => {
    server.reply(() => ({ raw: 'OK' }));
    const err = await failure(bank.sessions.confirm({ session_id: 'ps_1' }));
    expect(err).toMatchObject({ kind: 'non_json', retryable: true, outcomeUnknown: true });
    expect(err).toBeInstanceOf(BankTransportError);
  });

  test('socket destroyed mid-request → connection_reset, retryable', async () => {
    server.reply(() => ({ destroy: true }));
    const err = await failure(bank.sessions.confirm({ session_id: 'ps_1' }));
    expect(err).toBeInstanceOf(BankTransportError);
    expect(err).toMatchObject({ kind: 'connection_reset', retryable: true, outcomeUnknown: true });
  });

  test('a bank that never answers → timeout after requestTimeoutMs, retryable', async () => {
    server.reply(() => ({ hang: true }));
    const quick = clientFor(server, keys, { requestTimeoutMs: 150, maxRetries: 0 });
    const started = Date.now();
    const err = await failure(quick.sessions.confirm({ session_id: 'ps_1' }));
    await quick.close();
    expect(err).toBeInstanceOf(BankTransportError);
    expect(err).toMatchObject({ kind: 'timeout', retryable: true, outcomeUnknown: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('nothing listening → connect, retryable, outcome known (never sent)', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const dead = clientFor(server, keys, { baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const err = await failure(dead.sessions.status({ session_id: 'ps_1' }));
    await dead.close();
    expect(err).toMatchObject({ kind: 'connect', retryable: true, outcomeUnknown: false });
  });

  test('a host that does not resolve → dns, retryable, outcome known (never sent)', async () => {
    const nowhere = clientFor(server, keys, { baseUrl: 'http://bank.invalid', maxRetries: 0 });
    const err = await failure(nowhere.sessions.initPayout(payout));
    await nowhere.close();
    expect(err).toBeInstanceOf(BankTransportError);
    expect(err).toMatchObject({ kind: 'dns', retryable: true, outcomeUnknown: false });
  });

  test('status ok but no session → BankResponseValidationError, not retryable, not repeated', async () => {
    server.reply(() => ({ json: { status: 'ok' } }));
    const err = await failure(bank.sessions.status({ session_id: 'ps_1' }));
    expect(err).toBeInstanceOf(BankResponseValidationError);
    expect(err).toMatchObject({ retryable: false, code: 'response_validation' });
    expect(server.received).toHaveLength(1);
  });
});

describe('the client retries only what is safe to repeat', () => {
  const fail500 = () => server.reply(() => ({ status: 500, json: errorEnvelope('internal_error') }));

  test('un-keyed money-moving call: one attempt only', async () => {
    fail500();
    await failure(bank.sessions.initPayout(payout));
    expect(server.received).toHaveLength(1);
  });

  test('un-keyed confirm after a reset: one attempt only', async () => {
    server.reply(() => ({ destroy: true }));
    await failure(bank.sessions.confirm({ session_id: 'ps_1' }));
    expect(server.received).toHaveLength(1);
  });

  test('keyed money-moving call: 1 + maxRetries attempts, all with the same key and body', async () => {
    fail500();
    await failure(bank.sessions.initPayout(payout, { idempotencyKey: 'batch-7-row-3' }));
    expect(server.received).toHaveLength(3);
    expect(new Set(server.received.map((r) => r.headers['x-partner-idempotency-key']))).toEqual(
      new Set(['batch-7-row-3']),
    );
    expect(new Set(server.received.map((r) => r.body.toString()))).toHaveProperty('size', 1);
  });

  test('keyed call recovers when the bank comes back', async () => {
    server.reply((_req, i) =>
      i === 0
        ? { destroy: true }
        : { json: { status: 'ok', session: { id: 'ps_9', status: 'in_progress' } } },
    );
    const res = await bank.sessions.initPayout(payout, { idempotencyKey: 'batch-7-row-4' });
    expect(res.session.id).toBe('ps_9');
    expect(server.received).toHaveLength(2);
  });

  test('read-only calls retry without a key', async () => {
    fail500();
    await failure(bank.sessions.status({ session_id: 'ps_1' }));
    await failure(bank.npd.requestStatus({ request_id: 'rq_1' }));
    await failure(bank.fps.banks());
    expect(server.received).toHaveLength(9);
  });

  test('retryable 429 on a read is retried; a final error is not', async () => {
    server.reply(() => ({ status: 429, raw: 'slow down' }));
    await failure(bank.reports.accountBalance({ account_number: '40702810000000000001' }));
    expect(server.received).toHaveLength(3);
    server.received.length = 0;
    server.reply(() => ({ status: 400, json: errorEnvelope('invalid_request') }));
    await failure(bank.sessions.status({ session_id: 'ps_1' }));
    expect(server.received).toHaveLength(1);
  });

  test('maxRetries: 0 turns retries off', async () => {
    fail500();
    const once = clientFor(server, keys, { maxRetries: 0 });
    await failure(once.sessions.status({ session_id: 'ps_1' }));
    await once.close();
    expect(server.received).toHaveLength(1);
  });
});

describe('cancellation through AbortSignal', () => {
  test('aborting an in-flight call rejects with BankAbortError (not retryable)', async () => {
    server.reply(() => ({ hang: true }));
    const ac = new AbortController();
    const call = failure(bank.sessions.status({ session_id: 'ps_1' }, { signal: ac.signal }));
    // Abort only once the request is at the server, so it is really in flight, however slow the machine.
    await server.receivedCount(1);
    ac.abort();
    const err = await call;
    expect(err).toBeInstanceOf(BankAbortError);
    expect(isRetryable(err)).toBe(false);
    expect(server.received).toHaveLength(1);
  });

  test('an already aborted signal sends nothing', async () => {
    const err = await failure(bank.sessions.initPayout(payout, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(BankAbortError);
    expect(server.received).toHaveLength(0);
  });

  test('aborting during the retry backoff stops the retries', async () => {
    server.reply(() => ({ status: 503, raw: '' }));
    // The client logs the failed attempt and goes straight into its backoff: that line is the event.
    let attemptFailed!: () => void;
    const inBackoff = new Promise<void>((resolve) => (attemptFailed = resolve));
    const logger = createLogger(
      'bank-test',
      { write: (line: string) => void (line.includes('"bank call failed"') && attemptFailed()) },
      'debug',
    );
    const slow = clientFor(server, keys, { retryBaseDelayMs: 5_000, logger });
    const ac = new AbortController();
    const call = failure(slow.sessions.status({ session_id: 'ps_1' }, { signal: ac.signal }));
    await inBackoff;
    ac.abort();
    const err = await call;
    await slow.close();
    expect(err).toBeInstanceOf(BankAbortError);
    expect(server.received).toHaveLength(1);
  });
});
