/**
 * activities/failures.ts: the bank client's verdict becomes Temporal's. A retryable bank error must be
 * retried by the activity's policy, anything else must fail fast with the bank's code as the failure
 * type (workflows branch on it), and the details must keep whether the request may have reached the bank.
 */
import { ApplicationFailure } from '@temporalio/common';
import { callBank, toActivityFailure } from '../../activities/failures';
import {
  BankAbortError,
  BankApiError,
  BankClient,
  BankRequestValidationError,
  BankResponseValidationError,
  BankTransportError,
} from '../../src/bank';
import type { RunningSandbox } from '../../src/sandbox';
import { partnerKeys, PROJECT, silentLogger, startTestSandbox } from '../sandbox/signed-client';

function failureOf(err: unknown, what = 'session/status'): ApplicationFailure {
  try {
    toActivityFailure(err, what);
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    return thrown as ApplicationFailure;
  }
  throw new Error('toActivityFailure returned');
}

describe('toActivityFailure', () => {
  it.each([
    ['internal_error', 500, false],
    ['idempotency_key_already_exists', 409, false],
    ['an unlisted code on a 503', 503, false],
    ['an unlisted code on a 429', 429, false],
    ['declined_by_issuer_bank', 500, true],
    ['confirm_timeout', 400, true],
    ['an unlisted code on a 400', 400, true],
  ] as const)('bank answer %s (HTTP %s): nonRetryable %s', (label, httpStatus, nonRetryable) => {
    const code = label.startsWith('an unlisted') ? 'something_new' : label;
    const f = failureOf(new BankApiError(code, 'the bank says no', httpStatus), 'session/confirm');
    expect(f.nonRetryable).toBe(nonRetryable);
    expect(f.type).toBe(code);
    expect(f.message).toBe(`session/confirm: ${code}: the bank says no`);
    expect(f.details).toEqual([{ code, description: 'the bank says no', httpStatus, outcomeUnknown: false }]);
  });

  it('keeps outcomeUnknown of a transport error that may have reached the bank, and retries it', () => {
    const f = failureOf(new BankTransportError('timeout', 'no answer in 30 s', true), 'session/confirm');
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe('transport_timeout');
    expect(f.message).toBe('session/confirm: transport_timeout: no answer in 30 s');
    expect(f.details).toEqual([
      {
        code: 'transport_timeout',
        description: 'no answer in 30 s',
        httpStatus: undefined,
        outcomeUnknown: true,
      },
    ]);
  });

  it('says outcomeUnknown false for a transport error that never reached the bank', () => {
    const f = failureOf(new BankTransportError('connect', 'connection refused', false));
    expect(f.nonRetryable).toBe(false);
    expect(f.type).toBe('transport_connect');
    expect(f.details).toEqual([
      {
        code: 'transport_connect',
        description: 'connection refused',
        httpStatus: undefined,
        outcomeUnknown: false,
      },
    ]);
  });

  it('fails fast on a final HTTP status without a readable envelope', () => {
    const f = failureOf(new BankTransportError('http_status', 'HTTP 404', false, 404));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe('transport_http_status');
    // The transport's status is not an envelope's: only BankApiError fills httpStatus.
    expect(f.details).toEqual([
      {
        code: 'transport_http_status',
        description: 'HTTP 404',
        httpStatus: undefined,
        outcomeUnknown: false,
      },
    ]);
    expect(failureOf(new BankTransportError('http_status', 'HTTP 502', true, 502)).nonRetryable).toBe(false);
  });

  it.each([
    ['request_validation', new BankRequestValidationError('amount_details.amount', 'positive_integer')],
    ['response_validation', new BankResponseValidationError('/api/v1/session/status', 200, [])],
    ['aborted', new BankAbortError()],
  ] as const)('fails fast on %s', (code, err) => {
    const f = failureOf(err);
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(code);
    expect(f.details).toEqual([
      { code, description: err.message, httpStatus: undefined, outcomeUnknown: false },
    ]);
  });

  it('rethrows anything that is not a bank error unchanged', () => {
    const bug = new TypeError('cannot read x of undefined');
    expect(() => toActivityFailure(bug, 'session/status')).toThrow(bug);
    expect(() => toActivityFailure('a string', 'session/status')).toThrow('a string');
  });
});

describe('callBank', () => {
  it('returns what the call returns', async () => {
    await expect(callBank('session/status', async () => 42)).resolves.toBe(42);
  });

  it('turns a bank error into the activity failure and leaves other errors alone', async () => {
    await expect(
      callBank('session/cancel', () => Promise.reject(new BankApiError('session_cancelled', 'already', 400))),
    ).rejects.toMatchObject({
      type: 'session_cancelled',
      nonRetryable: true,
      message: 'session/cancel: session_cancelled: already',
    });
    const bug = new RangeError('bug');
    await expect(callBank('session/cancel', () => Promise.reject(bug))).rejects.toBe(bug);
  });

  describe('with the real bank client and sandbox', () => {
    let sb: RunningSandbox;
    beforeAll(async () => {
      ({ sb } = await startTestSandbox());
    });
    afterAll(() => sb.close());

    it("gives the bank's own code of a real refusal as the failure type", async () => {
      const bank = new BankClient({
        baseUrl: sb.url,
        project: PROJECT,
        privateKeyPem: partnerKeys().privateKey,
        apiVersion: 1,
        logger: silentLogger,
      });
      const err: unknown = await callBank('session/status', () =>
        bank.sessions.status({ session_id: 'no-such-session' }, { maxRetries: 0 }),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplicationFailure);
      const f = err as ApplicationFailure;
      expect(f.type).toBe('session_not_found');
      expect(f.nonRetryable).toBe(true);
      expect(f.details).toEqual([
        {
          code: 'session_not_found',
          description: 'session not found',
          httpStatus: 404,
          outcomeUnknown: false,
        },
      ]);
      expect(f.message).toMatch(/^session\/status: /);
    });
  });
});
