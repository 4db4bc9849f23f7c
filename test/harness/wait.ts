/** Polls until `predicate` holds (for state that changes outside the test: workflows, the sandbox). */
export async function waitFor(
  predicate: () => Promise<boolean>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms`);
}
