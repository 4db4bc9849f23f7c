/**
 * A dry run of N self-employed rows with N distinct tax numbers against the bank sandbox (default
 * timings: the tax service answers 300 ms after a check), over signed HTTP in one process. Prints the
 * time, checks/s, and the progress lines a log would show. Bounded: N at most 20 000.
 *
 *   node -r ./test/harness/ts-register.js bench/dry-run.ts [taxNumbers=2000] [concurrency=32]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { BankClient } from '../src/bank';
import { dryRunBatch, dryRunProgressReporter, NPD_CONCURRENCY } from '../src/batch/commands/dry-run';
import { TEST_CARDS } from '../src/sandbox';
import { startQuietSandbox } from './quiet-sandbox';

/** A valid 12-digit INN (check digits per the tax service's rule) from a 10-digit body. */
function inn12(body10: string): string {
  const ctl = (s: string, w: number[]) => (w.reduce((acc, wi, i) => acc + wi * Number(s[i]), 0) % 11) % 10;
  const eleven = body10 + ctl(body10, [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
  return eleven + ctl(eleven, [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]);
}

async function main(): Promise<void> {
  const n = Math.min(Number(process.argv[2] ?? 2000) || 2000, 20_000);
  const concurrency = Number(process.argv[3] ?? NPD_CONCURRENCY) || NPD_CONCURRENCY;
  const { sb, keys } = await startQuietSandbox();
  const bank = new BankClient({
    baseUrl: sb.url,
    project: 'bench',
    privateKeyPem: keys.privateKey,
    apiVersion: 1,
    logger: pino({ level: 'silent' }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-dry-run-'));
  const file = join(dir, 'batch.csv');
  const header = 'reference,last_name,first_name,inn,method,card_number,amount,currency,service_name';
  const rows = Array.from({ length: n }, (_, i) =>
    [
      `r-${i}`,
      'Ivanova',
      'Anna',
      inn12(`63${String(i).padStart(8, '0')}`),
      'card',
      TEST_CARDS.SUCCESS,
      '10.00',
      'RUB',
      'Design',
    ].join(','),
  );
  writeFileSync(file, [header, ...rows].join('\n') + '\n');
  try {
    const progress = dryRunProgressReporter({ write: (s) => process.stdout.write(s), isTTY: false });
    const started = performance.now();
    const report = await dryRunBatch(bank, file, {
      paths: { dataDir: dir, batchesDir: dir },
      concurrency,
      onProgress: progress.onProgress,
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${report.taxNumbersChecked} distinct tax numbers, concurrency ${concurrency}: ${seconds.toFixed(1)} s, ` +
        `${(report.taxNumbersChecked / seconds).toFixed(1)} checks/s, ${report.rows.filter((r) => r.pay).length} would be paid`,
    );
  } finally {
    await bank.close();
    await sb.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
