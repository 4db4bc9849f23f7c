/**
 * gRPC's DEADLINE_EXCEEDED (4), RESOURCE_EXHAUSTED (8) and UNAVAILABLE (14): a query or call that a loaded
 * server did not answer in time. Said anywhere in the error's chain of causes (the SDK wraps them).
 */
const TRANSIENT_GRPC_CODES = new Set([4, 8, 14]);
const TRANSIENT_GRPC_NAMES = /\b(DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED|UNAVAILABLE)\b|deadline exceeded/i;

export function isTransientGrpcError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'number' && TRANSIENT_GRPC_CODES.has(code)) return true;
    if (typeof message === 'string' && TRANSIENT_GRPC_NAMES.test(message)) return true;
  }
  return false;
}

/**
 * Polls until `predicate` holds (for state that changes outside the test: workflows, the sandbox). A
 * transient gRPC error from the predicate (a query a loaded server did not answer in time) counts as "not
 * yet" and is asked again until this wait's own deadline, whose error then names it; any other error
 * ends the wait at once.
 */
export async function waitFor(
  predicate: () => Promise<boolean>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let transient: unknown;
  while (Date.now() < deadline) {
    try {
      if (await predicate()) return;
    } catch (err) {
      if (!isTransientGrpcError(err)) throw err;
      transient = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const last = transient ? ` (last transient error: ${(transient as Error).message})` : '';
  throw new Error(`${what} not met within ${timeoutMs} ms${last}`);
}
