/**
 * How long the report of a large batch takes and how much memory it needs (issue 25): builds a paid
 * batch of N rows (default 1 000 000, bench/report-fixture.ts) in a child process, then writes its
 * report with finishBatch, as the batch's last activity does, in a fresh child process, and prints
 * the time, the peak RSS of that process and its peak live heap (sampled after a full collection every
 * 5 000 rows). Nothing is judged: test/batch/report-memory.test.ts holds the memory flat.
 *
 *   node -r ./test/harness/ts-register.js bench/report.ts [rows=1000000]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REGISTER = join(__dirname, '..', 'test', 'harness', 'ts-register.js');

function child(args: string[]): string {
  const register = __filename.endsWith('.ts') ? ['-r', REGISTER] : [];
  return execFileSync(process.execPath, ['--expose-gc', ...register, __filename, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function build(root: string, rows: number): Promise<void> {
  const { makeReportFixture } = await import('./report-fixture');
  const fixture = makeReportFixture(root, rows);
  process.stdout.write(JSON.stringify(fixture));
}

async function report(dataDir: string, batchId: string): Promise<void> {
  const { finishBatch } = await import('../src/batch/services/finish');
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peakHeap = before;
  let pulses = 0;
  const started = process.hrtime.bigint();
  const final = await finishBatch(dataDir, batchId, {
    cancelled: true,
    // Called every row: the heap is sampled every 5 000.
    pulse: () => {
      if (++pulses % 5000 !== 0) return;
      gc();
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(
    JSON.stringify({
      seconds,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      heapBeforeMb: before / 2 ** 20,
      peakHeapMb: peakHeap / 2 ** 20,
      reportMb: statSync(final.reportPath).size / 2 ** 20,
    }),
  );
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === '--build') return build(args[0]!, Number(args[1]));
  if (command === '--report') return report(args[0]!, args[1]!);
  const rows = Number(command ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`rows: a whole number above 0, not ${command}`);
  const root = mkdtempSync(join(tmpdir(), 'payrun-bench-report-'));
  try {
    const built = Date.now();
    const fixture = JSON.parse(child(['--build', root, String(rows)])) as {
      dataDir: string;
      batchId: string;
    };
    process.stdout.write(
      `${rows} rows: batch store built in ${((Date.now() - built) / 1000).toFixed(0)} s\n`,
    );
    const r = JSON.parse(child(['--report', fixture.dataDir, fixture.batchId])) as Record<string, number>;
    process.stdout.write(
      `report of ${rows} rows (${r.reportMb!.toFixed(0)} MB): ${r.seconds!.toFixed(1)} s, ` +
        `${Math.round(rows / r.seconds!)} rows/s; peak RSS ${r.peakRssMb!.toFixed(0)} MB; ` +
        `live heap ${r.heapBeforeMb!.toFixed(1)} MB before, ${r.peakHeapMb!.toFixed(1)} MB at most while writing\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
