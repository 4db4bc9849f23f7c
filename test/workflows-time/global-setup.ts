import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The time-skipping project's setup: Temporal's test server from Maven Central, resolved once
 * (scripts/ensure-test-server.sh is quiet when already done); each test file starts its own server and
 * waits for it to listen (test/harness/time-skipping.ts: not the SDK's fixed 5 s).
 */
export default function setup(): void {
  const script = path.resolve(__dirname, '../../scripts/ensure-test-server.sh');
  process.env.PAYRUN_TEST_SERVER_LAUNCHER = execFileSync(script, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}
