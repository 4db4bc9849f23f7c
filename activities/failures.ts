import { ApplicationFailure } from '@temporalio/activity';
import { BankApiError, BankError, BankTransportError } from '../src/bank';

/**
 * The bank client's verdict decides Temporal's: retryable bank errors are retried by the activity's
 * retry policy (bounded by the workflow), everything else fails fast with the bank's code as the
 * failure type so the workflow can branch on it. A bank error never becomes an endless loop.
 */
export function toActivityFailure(err: unknown, what: string): never {
  if (err instanceof BankError) {
    const description = err instanceof BankApiError ? err.description : err.message;
    const details = [
      {
        code: err.code,
        description,
        httpStatus: err instanceof BankApiError ? err.httpStatus : undefined,
        outcomeUnknown: err instanceof BankTransportError ? err.outcomeUnknown : false,
      },
    ];
    const message = `${what}: ${err.code}: ${description}`;
    throw err.retryable
      ? ApplicationFailure.create({ message, type: err.code, details, nonRetryable: false })
      : ApplicationFailure.create({ message, type: err.code, details, nonRetryable: true });
  }
  throw err;
}

export async function callBank<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    return toActivityFailure(err, what);
  }
}
