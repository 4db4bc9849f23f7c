/** Test only: how deep the workflow sandbox's stack traces go, read from inside it (test/temporal/stack-depth.test.ts). */
export async function sandboxStackDepth(): Promise<{ limit: number; frames: number }> {
  const nested = (n: number): string => (n === 0 ? (new Error('probe').stack ?? '') : nested(n - 1));
  const frames = nested(12)
    .split('\n')
    .filter((line) => /^\s+at /.test(line)).length;
  return { limit: Error.stackTraceLimit, frames };
}
