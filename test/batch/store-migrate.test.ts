import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runCli } from '../harness/cli-process';
import { startScratchPostgres, type ScratchPostgres } from '../harness/postgres';

// `payrun store migrate` is what the Helm chart's migration Job runs (deploy/helm/payrun): the URL from its
// secret file, every migration in deploy/batch-store-migrations applied once, a second run a no-op.
let pg: ScratchPostgres;
beforeAll(async () => {
  pg = await startScratchPostgres('migrate');
}, 180_000);
afterAll(async () => {
  await pg?.stop();
});

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ name: string }>('SELECT name FROM payrun_migrations ORDER BY id');
    return rows.rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

test('store migrate applies the migrations from the URL file once, and refuses the folder store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-migrate-'));
  const urlFile = join(dir, 'batch-store-url');
  writeFileSync(urlFile, `${pg.url}\n`);
  // As in the image (NODE_ENV=production): the Job has the store's URL and nothing else of payrun's.
  const env = {
    NODE_ENV: 'production',
    PAYRUN_BATCH_STORE: 'postgres',
    PAYRUN_BATCH_STORE_URL_FILE: urlFile,
    PAYRUN_LANG: 'en',
  };

  const first = await runCli(['store', 'migrate'], env);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/the batch store's tables are up to date: PostgreSQL database migrate_/);
  expect(first.stdout).not.toContain(pg.url); // no password in what the Job's log keeps
  const applied = await appliedMigrations(pg.url);
  const shipped = readdirSync(join(__dirname, '..', '..', 'deploy', 'batch-store-migrations'))
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => f.replace(/\.sql$/, ''));
  expect(shipped.length).toBeGreaterThan(0);
  expect(applied).toEqual(shipped);

  const again = await runCli(['store', 'migrate'], env);
  expect(again.code).toBe(0);
  expect(await appliedMigrations(pg.url)).toEqual(applied);

  const folder = await runCli(['store', 'migrate'], { PAYRUN_BATCH_STORE: 'folder', PAYRUN_LANG: 'en' });
  expect(folder.code).not.toBe(0);
  expect(folder.stderr).toMatch(/the folder store has no tables/);
}, 240_000);
