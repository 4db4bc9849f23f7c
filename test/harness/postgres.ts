/**
 * A scratch PostgreSQL for the batch store's tests: its own cluster in a temporary folder, on a
 * loopback port of its own, trust authentication (it listens on 127.0.0.1 only and lives for one
 * test file), fsync off. Debian's postgresql (the same binaries scripts/temporal-postgres.sh uses);
 * `make test-prod` may instead hand a URL in PAYRUN_TEST_BATCH_STORE_URL.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export interface ScratchPostgres {
  /** postgres://payrun@127.0.0.1:<port>/<database> */
  url: string;
  stop(): Promise<void>;
}

function pgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  return undefined;
}

export const postgresAvailable = (): boolean =>
  Boolean(process.env.PAYRUN_TEST_BATCH_STORE_URL) || pgBin() !== undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** initdb refuses root: as root, the cluster is run by the postgres user, as the engine script does. */
function asPg(cmd: string, args: string[]): void {
  if (process.getuid?.() === 0)
    execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' });
  else execFileSync(cmd, args, { stdio: 'pipe' });
}

/** A fresh database on a fresh cluster (or on the given server when PAYRUN_TEST_BATCH_STORE_URL is set). */
export async function startScratchPostgres(database = 'payrun'): Promise<ScratchPostgres> {
  const given = process.env.PAYRUN_TEST_BATCH_STORE_URL;
  if (given) return freshDatabase(given, database);
  const bin = pgBin();
  if (!bin)
    throw new Error(
      'PostgreSQL is not installed (apt-get install postgresql): the batch store tests need it',
    );
  const dir = mkdtempSync(join(tmpdir(), 'payrun-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  asPg(join(bin, 'initdb'), ['-D', data, '-U', 'payrun', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      asPg(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-l',
        join(dir, 'postgresql.log'),
        '-w',
        '-t',
        '120',
        'start',
        '-o',
        `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='' -c fsync=off`,
      ]);
      break;
    } catch (e) {
      if (attempt >= 2) throw e; // the port was taken between choosing and starting, twice more
    }
  }
  const scratch = await freshDatabase(`postgres://payrun@127.0.0.1:${port}/postgres`, database);
  return {
    url: scratch.url,
    stop: async () => {
      asPg(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates a database afresh (its name starts with `database`) on the server `url` points at. */
export async function freshDatabase(url: string, database: string): Promise<ScratchPostgres> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const name = `${database}_${process.pid}_${Date.now().toString(36)}`;
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const db = new URL(url);
  db.pathname = `/${name}`;
  return {
    url: db.toString(),
    stop: async () => {
      const c = new Client({ connectionString: admin.toString() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
