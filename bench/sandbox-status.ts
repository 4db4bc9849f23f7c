/**
 * Sustained session/status throughput of the bank sandbox over keep-alive (undici), loopback only.
 * Bounded: fixed duration and concurrency, stops by itself.
 *   npx tsc -p tsconfig.build.json && node dist/bench/sandbox-status.js [seconds] [concurrency]
 */
import { Pool } from 'undici';
import { signBody } from '../src/bank/signing';
import { TEST_CARDS } from '../src/sandbox';
import { startQuietSandbox } from './quiet-sandbox';

async function main(): Promise<void> {
  const seconds = Math.min(Number(process.argv[2] ?? 10) || 10, 60);
  const concurrency = Math.min(Number(process.argv[3] ?? 32) || 32, 256);
  const { sb, keys } = await startQuietSandbox();
  const pool = new Pool(sb.url, { connections: concurrency, pipelining: 1 });
  const call = async (
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    const text = JSON.stringify(body);
    const res = await pool.request({
      path,
      method: 'POST',
      body: text,
      headers: {
        'content-type': 'application/json',
        'x-partner-project': 'bench',
        'x-partner-sign': signBody(text, keys.privateKey),
      },
    });
    return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
  };
  const init = await call('/api/v1/session/init/payout', {
    payment_method: { type: 'card', card: { type: 'bank_card', bank_card: { number: TEST_CARDS.SUCCESS } } },
    amount_details: { amount: 10_000, currency: 'rub' },
  });
  const sessionId = (init.json.session as { id: string }).id;
  const statusBody = JSON.stringify({ session_id: sessionId });
  const headers = {
    'content-type': 'application/json',
    'x-partner-project': 'bench',
    'x-partner-sign': signBody(statusBody, keys.privateKey),
  };

  let ok = 0;
  let failed = 0;
  const latencies: number[] = [];
  const until = Date.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (Date.now() < until) {
      const t0 = process.hrtime.bigint();
      const res = await pool.request({
        path: '/api/v1/session/status',
        method: 'POST',
        body: statusBody,
        headers,
      });
      await res.body.dump();
      if (res.statusCode === 200) ok++;
      else failed++;
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number): string => (latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(2);
  console.log(
    JSON.stringify({
      bench: 'sandbox session/status',
      seconds: elapsed,
      concurrency,
      ok,
      failed,
      rps: Math.round(ok / elapsed),
      p50_ms: pct(0.5),
      p99_ms: pct(0.99),
    }),
  );
  await pool.close();
  await sb.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
