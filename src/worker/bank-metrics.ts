import { BankError, type BankClient } from '../bank';
import type { WorkerMetrics } from '../metrics';

/** The client's method groups: each of their methods is one bank API call. */
const RESOURCES = [
  'sessions',
  'nominal',
  'multi',
  'tokens',
  'fps',
  'npd',
  'selfEmployed',
  'taxes',
  'reports',
  'wallets',
] as const satisfies readonly (keyof BankClient)[];

/**
 * The same client, each call timed and each failure counted under its method (`sessions.initPayout`)
 * and the error's code: the bank's own error code, or the client's (`transport_timeout`,
 * `request_validation`, `aborted`, …: src/bank/errors.ts). Activities get this client instead of the
 * bare one, so they are counted without a line of their own; a call includes the client's own
 * retries (activities ask for none: Temporal retries them).
 */
export function instrumentBankClient(bank: BankClient, metrics: WorkerMetrics): BankClient {
  const wrapped = Object.create(bank) as BankClient;
  for (const resource of RESOURCES) {
    const methods = bank[resource] as Record<string, unknown>;
    const timed: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(methods)) {
      if (typeof fn !== 'function') {
        timed[name] = fn;
        continue;
      }
      const method = `${resource}.${name}`;
      timed[name] = async (...args: unknown[]) => {
        const started = performance.now();
        try {
          const answer: unknown = await (fn as (...a: unknown[]) => Promise<unknown>).apply(methods, args);
          metrics.bankCall(method, (performance.now() - started) / 1000);
          return answer;
        } catch (err) {
          metrics.bankCall(method, (performance.now() - started) / 1000, errorCode(err));
          throw err;
        }
      };
    }
    Object.defineProperty(wrapped, resource, { value: timed, enumerable: true });
  }
  return wrapped;
}

function errorCode(err: unknown): string {
  return err instanceof BankError ? err.code : 'unknown';
}
