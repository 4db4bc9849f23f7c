import { isGrpcServiceError } from '@temporalio/client';
import { t, type Lang } from '../i18n';

/**
 * gRPC codes that mean "Temporal did not answer this time" rather than "the answer is no": the server
 * down or restarting (UNAVAILABLE), a call cut short (DEADLINE_EXCEEDED, ABORTED), the server shedding
 * load (RESOURCE_EXHAUSTED). A workflow that failed or does not exist is an answer, never retried.
 */
const TRANSIENT_CODES = new Set([14, 4, 10, 8]);

/** True when `err` (or an error it wraps: the client's ServiceError wraps the gRPC one) is transient. */
export function isEngineUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e)) return TRANSIENT_CODES.has(e.code);
  }
  return false;
}

/** How a wait is told to the person following it (stderr: stdout carries the results). */
export interface EngineWaitNotices {
  waiting(retryInMs: number, reason: string): void;
  back(): void;
}

export function consoleNotices(lang?: Lang): EngineWaitNotices {
  return {
    waiting: (ms, reason) =>
      process.stderr.write(`\n${t('engine.waiting', { seconds: Math.ceil(ms / 1000), reason }, lang)}\n`),
    back: () => process.stderr.write(`${t('engine.back', {}, lang)}\n`),
  };
}

export interface EngineWaitOptions {
  notices?: EngineWaitNotices;
  /** First pause after a failure; doubled after each further one up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Calls `call` until it answers, waiting out a Temporal that is down or restarting with a doubling pause
 * (1 s up to 15 s by default) and saying so; any other error is thrown at once. No limit: the person
 * following stops it (the work goes on in Temporal either way).
 */
export async function untilEngineAnswers<T>(
  call: () => Promise<T>,
  opts: EngineWaitOptions = {},
): Promise<T> {
  const notices = opts.notices ?? consoleNotices();
  const maxDelayMs = opts.maxDelayMs ?? 15_000;
  let delayMs = opts.initialDelayMs ?? 1_000;
  let waited = false;
  for (;;) {
    try {
      const answer = await call();
      if (waited) notices.back();
      return answer;
    } catch (err) {
      if (!isEngineUnavailable(err)) throw err;
      notices.waiting(delayMs, reasonOf(err));
      waited = true;
      await new Promise((r) => setTimeout(r, delayMs));
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
  }
}

function reasonOf(err: unknown): string {
  const grpc = (err as { cause?: { details?: string } }).cause?.details;
  return grpc || (err instanceof Error ? err.message : String(err));
}
