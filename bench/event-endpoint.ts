import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../src/config';
import { startEventReceiver } from '../test/harness/event-receiver';

/**
 * PAYRUN_BENCH_EVENTS=1: the bench's worker sends every event type to a local receiver that takes all,
 * so bench/compare.ts prices what issue 41's events cost per row (docs/events.md, "Costs").
 */
export async function benchEventEndpoint() {
  if (process.env.PAYRUN_BENCH_EVENTS !== '1') return undefined;
  const secret = 'bench-event-secret-of-at-least-32-bytes';
  const receiver = await startEventReceiver(secret, 0);
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-events-'));
  writeFileSync(join(dir, 'secret'), secret);
  const setting = JSON.stringify([
    { name: 'bench', url: receiver.url, secretFile: join(dir, 'secret'), types: ['payout.*', 'batch.*'] },
  ]);
  return { endpoints: loadEventEndpoints({ [EVENT_ENDPOINTS_VAR]: setting }), receiver };
}
