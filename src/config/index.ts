/**
 * The one place environment variables are read. Each setting is declared once, in the file of its
 * section, with its variable's name, its default, its rule and why; every missing or invalid variable is
 * reported by name in one ConfigError (exit 2), when the process that uses it starts. Each part of payrun
 * loads only the sections it needs: the worker loads the bank (caller) section and not the ingress's
 * webhook key or port, the ingress loads the webhook key and not the partner private key.
 *
 * - core.ts: ConfigError and the parsing helpers
 * - process.ts: what every process reads (LOG_LEVEL, PAYRUN_LANG, PAYRUN_DATA_DIR, PAYRUN_MAX_PAYOUT)
 * - temporal.ts: TEMPORAL_*, the payload keys, the workflow id secret, the Temporal CLI
 * - bank.ts: the bank, the payer, the bank's webhook key; bank timeouts nested in the activities' timeouts
 * - servers.ts: the webhook ingress and the codec server
 * - console.ts, worker.ts, people.ts (the policy file, who is asking), reconcile.ts, demo.ts
 * - batches.ts: the batch folders and the stop list
 * - batch-store.ts: which batch store (folder or PostgreSQL)
 * - events.ts: the endpoints that receive signed status events (docs/events.md)
 * - sandbox.ts: the bank sandbox's SANDBOX_* (imported only by the sandbox, so nothing else loads it)
 *
 * Documented exceptions, where reading the environment elsewhere is the point: none in src/, activities/
 * or workflows/ (a child process gets envWith's copy of this process's environment). Tests' harness
 * (test/) sets and passes environments of its own. test/config.test.ts fails on any other `process.env`.
 * docs/operations.md, "Configuration: every variable", lists them all with their defaults.
 */
export * from './core';
export * from './process';
export * from './temporal';
export * from './bank';
export * from './servers';
export * from './console';
export * from './worker';
export * from './people';
export * from './reconcile';
export * from './demo';
export * from './batches';
export * from './batch-store';
export * from './events';
