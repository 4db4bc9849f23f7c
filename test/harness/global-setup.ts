import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type RunningDevServer } from '../../src/devserver';
import { TEST_ONLY_PAYLOAD_KEYS } from './test-only-payload-key';

declare global {
  var __PAYRUN_DEV_SERVER__: RunningDevServer | undefined;
}

/**
 * One real Temporal dev server for the whole jest run: free ports, a fresh temp directory,
 * SQLite with WAL, payrun's search attributes registered. Test workers inherit its address
 * through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-test-'));
  const started = Date.now();
  // An existing server (`make test-prod`: scripts/temporal-postgres.sh), namespace `default` with the
  // search attributes registered: used as it is, neither started nor stopped here.
  const existing = process.env.PAYRUN_TEMPORAL_ADDRESS;
  if (existing) {
    process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = existing;
    process.env.PAYRUN_TEST_DIR = dir;
    process.env.PAYRUN_PAYLOAD_KEYS ??= TEST_ONLY_PAYLOAD_KEYS;
    process.stderr.write(`\n[harness] using the Temporal server at ${existing} (PAYRUN_TEMPORAL_ADDRESS)\n`);
    return;
  }
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.db'),
    logFile: join(dir, 'temporal.log'),
  });
  process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.PAYRUN_TEST_DIR = dir;
  // Every test process and every worker it spawns encrypts with this key (inherited through the
  // environment), and recorded histories come out decodable by test/harness/replay.ts.
  process.env.PAYRUN_PAYLOAD_KEYS ??= TEST_ONLY_PAYLOAD_KEYS;
  globalThis.__PAYRUN_DEV_SERVER__ = server;
  process.stderr.write(
    `\n[harness] Temporal dev server ${server.address} ready in ${Date.now() - started} ms (${dir})\n`,
  );
}
