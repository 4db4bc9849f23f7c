/**
 * The one error family of the bank client. Every failure the client reports is a BankError with
 * the bank's (or our) `code` and a `retryable` verdict, so Temporal activities can decide with
 * `isRetryable(err)` instead of parsing messages.
 */
export abstract class BankError extends Error {
  abstract readonly retryable: boolean;
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Codes after which the same request may succeed later. */
const RETRYABLE_API_CODES = new Set([
  'internal_error',
  'unexpected_error',
  // The first request with this key is still running; asking again later returns its result.
  'idempotency_key_already_exists',
]);

/**
 * Codes the spec names as final. They stay final whatever HTTP status carries them, because the
 * spec does not show the statuses and the envelope is the bank's actual verdict.
 */
const FINAL_API_CODES = new Set([
  'invalid_request',
  'confirm_timeout',
  'idempotency_key_params_mismatch',
  'idempotency_key_not_supported',
  'declined_by_issuer_bank',
  'session_cancelled',
  'qr_expired',
  'partner_project_not_found',
  'wallet_account_number_not_found',
  'validation_error',
  'phone_number_not_found',
  'wallet_not_found',
  'wallet_closed_found',
  'wallet_not_nullable_balance_error',
  'wallet_block_error',
]);

export function isRetryableHttpStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Verdict for an error envelope: the code decides. A code the spec does not list (its complete
 * list is not shown) is retryable only when the HTTP status says so (429 or 5xx).
 */
export function apiCodeRetryable(code: string, httpStatus: number): boolean {
  if (RETRYABLE_API_CODES.has(code)) return true;
  if (FINAL_API_CODES.has(code)) return false;
  return isRetryableHttpStatus(httpStatus);
}

/** The bank answered `{status: "error", error: {code, description}}`. */
export class BankApiError extends BankError {
  readonly retryable: boolean;
  constructor(
    code: string,
    readonly description: string,
    readonly httpStatus: number,
  ) {
    super(`bank error ${code} (HTTP ${httpStatus}): ${description}`, code);
    this.retryable = apiCodeRetryable(code, httpStatus);
  }
}

export type TransportErrorKind =
  | 'timeout'
  | 'connect_timeout'
  | 'connection_reset'
  | 'dns'
  | 'connect'
  | 'socket'
  | 'non_json'
  | 'http_status';

/**
 * No readable answer from the bank. `outcomeUnknown` is true when the request may have reached
 * the bank (a money-moving call without an idempotency key must then be checked with
 * session/status, not repeated).
 */
export class BankTransportError extends BankError {
  readonly retryable: boolean;
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
    readonly outcomeUnknown: boolean,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, `transport_${kind}`);
    if (options?.cause !== undefined) this.cause = options.cause;
    this.retryable = kind === 'http_status' ? isRetryableHttpStatus(httpStatus ?? 0) : true;
  }
}

/** The caller's request breaks a rule of the spec; nothing was sent. */
export class BankRequestValidationError extends BankError {
  readonly retryable = false;
  constructor(
    /** Dotted path of the first failing field, e.g. `amount_details.amount`. */
    readonly field: string,
    /** The rule it breaks, e.g. `positive_integer`. */
    readonly rule: string,
    /** Every failing field, the first one repeated. */
    readonly issues: { field: string; rule: string }[] = [{ field, rule }],
  ) {
    super(`invalid bank request: ${field || '(body)'}: ${rule}`, 'request_validation');
  }
}

/** The bank answered, but not in a shape we can read; the operation may still have happened. */
export class BankResponseValidationError extends BankError {
  readonly retryable = false;
  constructor(
    readonly path: string,
    readonly httpStatus: number,
    readonly issues: { field: string; rule: string }[],
  ) {
    const first = issues[0];
    super(
      `unreadable bank response from ${path} (HTTP ${httpStatus}): ${first ? `${first.field}: ${first.rule}` : ''}`,
      'response_validation',
    );
  }
}

/** The caller aborted through its AbortSignal; never retried. */
export class BankAbortError extends BankError {
  readonly retryable = false;
  constructor(options?: { cause?: unknown }) {
    super('bank request aborted by the caller', 'aborted');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

export function isRetryable(err: unknown): boolean {
  return err instanceof BankError && err.retryable;
}
