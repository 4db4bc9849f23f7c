/**
 * The Temporal dynamic config payrun runs with. deploy/temporal/dynamicconfig.yaml gives the
 * production server the same values (test/compose.test.ts keeps the two equal); the dev server gets
 * them as `--dynamic-config-value`, so tests and benches measure what production runs.
 * docs/operations.md says why each is set.
 */
export const TEMPORAL_DYNAMIC_CONFIG: Readonly<Record<string, number>> = {
  // The ingress's and operators' visibility queries (issue 13); the dev server's own default.
  'frontend.namespaceRPS.visibility': 100,
  // At the default 20 reads a second a history shard hands each task to matching up to 50 ms late,
  // and a payout row waits for several in a row; 200 cost a busy worker more than it gained
  // (docs/performance.md, "The fifth round").
  'history.transferProcessorMaxPollRPS': 50,
};

/** `--dynamic-config-value KEY=VALUE` pairs for `temporal server start-dev` (values are JSON). */
export function dynamicConfigArgs(config: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(config).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}
