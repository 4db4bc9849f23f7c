import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../harness/wait';

// scripts/temporal-postgres.sh on real PostgreSQL and a real temporal-server, in copies of this checkout
// (two checkouts, two caches): slow (a cluster each) and needs PostgreSQL, so `make test-prod` runs it
// (PAYRUN_ENGINE_SCRIPT_TESTS=1), `make test` skips it.
const RUN = process.env.PAYRUN_ENGINE_SCRIPT_TESTS === '1';
const suite = RUN ? describe : describe.skip;
const ROOT = join(__dirname, '..', '..');
const REAL_BIN = join(
  process.env.PAYRUN_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'payrun'),
  'bin',
);

interface Checkout {
  root: string;
  /** This checkout's own XDG_CACHE_HOME, as a second CI job or user would have. */
  cache: string;
}

let base = '';
const checkouts: Checkout[] = [];

/** The files the script reads, copied; node_modules linked; the binaries linked into the checkout's own cache. */
function makeCheckout(name: string): Checkout {
  const root = join(base, name);
  for (const path of [
    'scripts/temporal-postgres.sh',
    'scripts/lib',
    'scripts/ensure-temporal.sh',
    'deploy/temporal',
    'workflows/shared/search-attributes.ts',
    'test/harness/ts-register.js',
  ])
    cpSync(join(ROOT, path), join(root, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const cache = join(base, `${name}-cache`);
  mkdirSync(join(cache, 'payrun', 'bin'), { recursive: true });
  for (const bin of ['temporal', 'temporal-server', 'temporal-sql-tool']) {
    // Built once by `scripts/temporal-postgres.sh start` (make test-prod runs it first); linked, not rebuilt.
    if (!existsSync(join(REAL_BIN, bin)))
      throw new Error(
        `${join(REAL_BIN, bin)} is missing: run scripts/temporal-postgres.sh start once (make test-prod does)`,
      );
    symlinkSync(join(REAL_BIN, bin), join(cache, 'payrun', 'bin', bin));
  }
  const checkout = { root, cache };
  checkouts.push(checkout);
  return checkout;
}

function script(c: Checkout, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: c.cache };
  for (const name of ['PAYRUN_CACHE_DIR', 'TEMPORAL_PG_DIR', 'TEMPORAL_PGDATA', 'TEMPORAL_SHARDS'])
    delete env[name];
  for (const name of Object.keys(env)) if (/^TEMPORAL_.*PORT/.test(name)) delete env[name];
  return scriptWith(c, env, ...args);
}

function scriptWith(c: Checkout, env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync('bash', [join(c.root, 'scripts', 'temporal-postgres.sh'), ...args], {
    encoding: 'utf8',
    env,
    timeout: 300_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const addressOf = (stdout: string) => /TEMPORAL_ADDRESS=(\S+)/.exec(stdout)?.[1];

function temporal(address: string, ...args: string[]) {
  return spawnSync(join(REAL_BIN, 'temporal'), [...args, '--address', address, '--namespace', 'default'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const stateDir = (c: Checkout) => join(c.root, '.temporal-postgres');
const readPid = (file: string) => Number(readFileSync(file, 'utf8').split('\n')[0]);
const postmasterPid = (c: Checkout) => readPid(join(stateDir(c), 'pgdata', 'postmaster.pid'));
const serverPid = (c: Checkout) => readPid(join(stateDir(c), 'server.pid'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Waits for what a real process brings about (a pid file read while rewritten counts as not yet). */
const waitUntilAsync = (condition: () => Promise<boolean>, what: string) => waitFor(condition, 120_000, what);
const waitUntil = (condition: () => boolean, what: string) =>
  waitFor(
    async () => {
      try {
        return condition();
      } catch {
        return false;
      }
    },
    120_000,
    what,
  );

suite('scripts/temporal-postgres.sh (real PostgreSQL and temporal-server)', () => {
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'payrun-engine-script-'));
    // As root PostgreSQL runs as `postgres`, which must reach each checkout's data through this folder.
    chmodSync(base, 0o755);
  });

  afterAll(() => {
    for (const c of checkouts) script(c, 'stop');
    if (base) rmSync(base, { recursive: true, force: true });
    base = '';
    checkouts.length = 0;
  });

  it("two checkouts with their own caches each get their own cluster; neither touches the other's data", () => {
    const a = makeCheckout('a');
    const startA = script(a, 'start');
    expect({ status: startA.status, stderr: startA.stderr }).toEqual({
      status: 0,
      stderr: expect.any(String),
    });
    const addressA = addressOf(startA.stdout)!;
    // Something of A's to find again: a workflow in A's database.
    const marker = temporal(
      addressA,
      'workflow',
      'start',
      '--type',
      'marker',
      '--task-queue',
      'nobody',
      '--workflow-id',
      'marker-a',
    );
    expect(marker.status).toBe(0);

    const b = makeCheckout('b');
    const startB = script(b, 'start');
    expect({ status: startB.status, stderr: startB.stderr }).toEqual({
      status: 0,
      stderr: expect.any(String),
    });
    const addressB = addressOf(startB.stdout)!;
    expect(addressB).not.toBe(addressA);

    // A still runs, on its own data: status says so and its workflow is there.
    const statusA = script(a, 'status');
    expect({ status: statusA.status, stderr: statusA.stderr }).toEqual({
      status: 0,
      stderr: expect.any(String),
    });
    expect(temporal(addressA, 'workflow', 'describe', '--workflow-id', 'marker-a').status).toBe(0);
    // B's database is B's: A's workflow is not in it.
    expect(temporal(addressB, 'workflow', 'describe', '--workflow-id', 'marker-a').status).not.toBe(0);
    // Stopping and starting A again leaves B running and brings A back on its own data. (Before, both
    // checkouts' clusters were one machine-wide folder as root: B's start deleted A's data under A's
    // running PostgreSQL, and A's stop then stopped B's.)
    expect(script(a, 'stop').status).toBe(0);
    expect(script(b, 'status').status).toBe(0);
    expect(script(a, 'start').status).toBe(0);
    expect(temporal(addressA, 'workflow', 'describe', '--workflow-id', 'marker-a').status).toBe(0);
    // Each checkout's state and data are inside the checkout.
    for (const c of [a, b])
      expect(existsSync(join(c.root, '.temporal-postgres', 'pgdata', 'PG_VERSION'))).toBe(true);
    expect(readFileSync(join(a.root, '.temporal-postgres', 'address.env'), 'utf8')).toContain(addressA);
  }, 300_000);

  it('start --fresh makes a new batch store whose URL batch-store-url prints, and it connects', async () => {
    const c = makeCheckout('fresh');
    try {
      expect(script(c, 'start').status).toBe(0);
      const before = script(c, 'batch-store-url');
      expect(before.status).toBe(0);
      const fresh = script(c, 'start', '--fresh');
      expect({ status: fresh.status, stderr: fresh.stderr }).toEqual({
        status: 0,
        stderr: expect.any(String),
      });
      // Before the fix the old password stayed in the script's shell: the new database got it, the new
      // state.env did not, and batch-store-url said there was no batch store.
      const after = script(c, 'batch-store-url');
      expect({ status: after.status, stderr: after.stderr }).toEqual({ status: 0, stderr: '' });
      const url = /^PAYRUN_BATCH_STORE_URL=(\S+)$/m.exec(after.stdout)?.[1];
      expect(url).toMatch(/^postgres:\/\/payrun:/);
      expect(after.stdout).not.toBe(before.stdout);
      const { Client } = await import('pg');
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        expect((await client.query('SELECT current_user AS who')).rows).toEqual([{ who: 'payrun' }]);
      } finally {
        await client.end();
      }
    } finally {
      script(c, 'stop');
    }
  }, 600_000);

  it('status exits non-zero while PostgreSQL is down; start brings it back and the server works again', async () => {
    const a = checkouts[0] ?? makeCheckout('a');
    expect(script(a, 'start').status).toBe(0);
    const postmaster = postmasterPid(a);
    process.kill(postmaster, 'SIGQUIT'); // PostgreSQL's immediate shutdown, as a crash leaves it
    await waitUntil(() => !alive(postmaster), 'PostgreSQL to exit');

    const down = script(a, 'status');
    expect(down.status).toBe(3);
    expect(down.stderr).toContain('PostgreSQL NOT running');

    const start = script(a, 'start');
    expect({ status: start.status, stderr: start.stderr }).toEqual({
      status: 0,
      stderr: expect.not.stringContaining('already running'),
    });
    expect(script(a, 'status').status).toBe(0);
    expect(postmasterPid(a)).not.toBe(postmaster);
    expect(
      temporal(addressOf(start.stdout)!, 'workflow', 'describe', '--workflow-id', 'marker-a').status,
    ).toBe(0);
  }, 300_000);

  it('supervise starts the server again after it is killed with SIGKILL, and PostgreSQL after it crashes', async () => {
    const a = checkouts[0] ?? makeCheckout('a');
    expect(script(a, 'start').status).toBe(0);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      XDG_CACHE_HOME: a.cache,
      TEMPORAL_SUPERVISE_INTERVAL: '1',
    };
    delete env.TEMPORAL_PG_DIR;
    const supervisor = spawn('bash', [join(a.root, 'scripts', 'temporal-postgres.sh'), 'supervise'], {
      env,
      stdio: 'ignore',
    });
    try {
      const server = serverPid(a);
      process.kill(server, 'SIGKILL');
      await waitUntil(
        () => serverPid(a) !== server && alive(serverPid(a)),
        'the supervisor to start the server again',
      );
      const postmaster = postmasterPid(a);
      process.kill(postmaster, 'SIGQUIT');
      await waitUntil(
        () => postmasterPid(a) !== postmaster && alive(postmasterPid(a)),
        'the supervisor to start PostgreSQL again',
      );
      await waitUntil(() => script(a, 'status').status === 0, 'status to say both run');
    } finally {
      // The watchdog finishes the round it is in before it exits: waited for, so no start of its runs
      // after this test (or afterAll's stop) is over.
      const exited = new Promise((r) => supervisor.once('exit', r));
      supervisor.kill('SIGTERM');
      await exited;
    }
  }, 300_000);

  it('a start whose PostgreSQL stops while it registers the namespace fails at once, so the watchdog can start it again', async () => {
    const a = checkouts[0] ?? makeCheckout('a');
    expect(script(a, 'start').status).toBe(0);
    const server = serverPid(a);
    process.kill(server, 'SIGKILL');
    await waitUntil(() => !alive(server), 'the server to exit');
    // The script runs `node` once the new server is launched (payrun's search attributes): this one first
    // waits for that server to answer, then crashes PostgreSQL. Before, the start then waited out its
    // 120 s deadline with the server alive and answering nothing, and the watchdog's round with it.
    const shim = join(base, 'crash-postgres-shim');
    mkdirSync(shim, { recursive: true });
    writeFileSync(
      join(shim, 'node'),
      `#!/bin/bash
if [[ "$*" == *search-attributes.ts* ]]; then
  . "${stateDir(a)}/state.env"
  until "${join(REAL_BIN, 'temporal')}" operator namespace describe --namespace default \
    --address "127.0.0.1:$FRONTEND_GRPC_PORT" >/dev/null 2>&1; do sleep 0.2; done
  kill -QUIT "$(head -1 "${join(stateDir(a), 'pgdata', 'postmaster.pid')}")"
fi
PATH="${process.env.PATH}" exec node "$@"
`,
      { mode: 0o755 },
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      XDG_CACHE_HOME: a.cache,
      PATH: `${shim}:${process.env.PATH}`,
    };
    delete env.TEMPORAL_PG_DIR;
    const start = spawnSync('bash', [join(a.root, 'scripts', 'temporal-postgres.sh'), 'start'], {
      encoding: 'utf8',
      env,
      timeout: 300_000,
    });
    expect({ status: start.status, stderr: start.stderr }).toEqual({
      status: 1,
      stderr: expect.stringContaining('PostgreSQL stopped during start-up'),
    });
    // Not the 120 s deadline's message: it stopped waiting. The next start (the watchdog's next round)
    // brings both back.
    const again = script(a, 'start');
    expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(script(a, 'status').status).toBe(0);
  }, 300_000);
});

/** n distinct loopback ports between 20000 and 32767 nobody listens on (membership ports must fit a smallint). */
async function freePorts(n: number): Promise<number[]> {
  const held: Server[] = [];
  while (held.length < n) {
    const server = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(20000 + Math.floor(Math.random() * 12768), '127.0.0.1', () => resolve(true));
    });
    if (ok) held.push(server);
  }
  const ports = held.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.destroy() !== undefined));
    socket.once('error', () => resolve(false));
  });

const PORT_KEYS = [
  'PG_PORT',
  'FRONTEND_GRPC_PORT',
  'FRONTEND_HTTP_PORT',
  'FRONTEND_MEMBERSHIP_PORT',
  'HISTORY_GRPC_PORT',
  'HISTORY_MEMBERSHIP_PORT',
  'MATCHING_GRPC_PORT',
  'MATCHING_MEMBERSHIP_PORT',
  'WORKER_GRPC_PORT',
  'WORKER_MEMBERSHIP_PORT',
  'METRICS_PORT',
];

suite('scripts/temporal-postgres.sh: every port pinned, started as its systemd unit starts it', () => {
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'payrun-engine-ports-'));
    chmodSync(base, 0o755);
  });
  afterAll(() => {
    for (const c of checkouts) script(c, 'stop');
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('listens on exactly the ports its variables name, keeps them, and moves one only while stopped', async () => {
    const c = makeCheckout('pinned');
    const ports = await freePorts(PORT_KEYS.length + 1);
    const pinned = Object.fromEntries(PORT_KEYS.map((k, i) => [`TEMPORAL_${k}`, String(ports[i])]));
    // The environment the printed unit gives the script (systemd adds next to nothing), plus the ports.
    const unit = script(c, 'systemd-unit').stdout;
    const unitEnv = Object.fromEntries(
      [...unit.matchAll(/^Environment="?([A-Z_]+)=(.*?)"?$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    expect(unitEnv).toMatchObject({ HOME: expect.any(String), XDG_CACHE_HOME: c.cache });
    try {
      const start = scriptWith(c, { ...unitEnv, ...pinned }, 'start');
      expect({ status: start.status, stderr: start.stderr }).toEqual({
        status: 0,
        stderr: expect.any(String),
      });
      expect(addressOf(start.stdout)).toBe(`127.0.0.1:${pinned.TEMPORAL_FRONTEND_GRPC_PORT}`);
      const state = readFileSync(join(stateDir(c), 'state.env'), 'utf8');
      const config = readFileSync(join(stateDir(c), 'config', 'development.yaml'), 'utf8');
      for (const [i, key] of PORT_KEYS.entries()) {
        expect(state).toMatch(new RegExp(`^${key}=${ports[i]}$`, 'm'));
        if (key !== 'PG_PORT') expect(config).toContain(String(ports[i]));
        // Each is really in use by PostgreSQL or the server (ringpop's membership ports included), but the
        // worker service's gRPC port: temporal-server 1.29 configures it and binds nothing there.
        if (key !== 'WORKER_GRPC_PORT')
          await waitUntilAsync(() => listening(ports[i]!), `${key} (${ports[i]}) to listen`);
      }
      // Without the variables (the watchdog's round) the cluster keeps its ports.
      expect(addressOf(script(c, 'start').stdout)).toBe(`127.0.0.1:${pinned.TEMPORAL_FRONTEND_GRPC_PORT}`);
      // A different port while it runs is refused (exit 2, naming it); after a stop it is taken.
      const moved = { TEMPORAL_METRICS_PORT: String(ports[PORT_KEYS.length]) };
      const refused = scriptWith(c, { ...unitEnv, ...moved }, 'start');
      expect({ status: refused.status, stderr: refused.stderr }).toEqual({
        status: 2,
        stderr: expect.stringContaining(`METRICS_PORT=${moved.TEMPORAL_METRICS_PORT}`),
      });
      expect(script(c, 'stop').status).toBe(0);
      expect(scriptWith(c, { ...unitEnv, ...moved }, 'start').status).toBe(0);
      await waitUntilAsync(() => listening(ports[PORT_KEYS.length]!), 'the moved metrics port to listen');
    } finally {
      script(c, 'stop');
    }
  }, 600_000);
});

// Fast and without PostgreSQL: `make test` runs these.
describe('scripts/temporal-postgres.sh without a cluster', () => {
  const run = (dir: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    spawnSync('bash', [join(ROOT, 'scripts', 'temporal-postgres.sh'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, TEMPORAL_PG_DIR: dir, ...extra },
    });

  it('rotates server.log and postgresql.log past TEMPORAL_LOG_MAX_MB, keeping three older copies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-engine-logs-'));
    try {
      mkdirSync(join(dir, 'pgdata'));
      const big = 'x'.repeat(1024 * 1024 + 1);
      writeFileSync(join(dir, 'server.log'), big);
      for (const n of [1, 2, 3]) writeFileSync(join(dir, `server.log.${n}`), `old ${n}`);
      writeFileSync(join(dir, 'pgdata', 'postgresql.log'), 'small');
      const r = run(dir, ['rotate-logs'], { TEMPORAL_LOG_MAX_MB: '1' });
      expect({ status: r.status, stderr: r.stderr }).toEqual({
        status: 0,
        stderr: expect.stringContaining('rotated'),
      });
      expect(readFileSync(join(dir, 'server.log'), 'utf8')).toBe('');
      expect(readFileSync(join(dir, 'server.log.1'), 'utf8')).toBe(big);
      expect(readFileSync(join(dir, 'server.log.2'), 'utf8')).toBe('old 1');
      expect(readFileSync(join(dir, 'server.log.3'), 'utf8')).toBe('old 2');
      expect(existsSync(join(dir, 'server.log.4'))).toBe(false);
      expect(readFileSync(join(dir, 'pgdata', 'postgresql.log'), 'utf8')).toBe('small');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('status exits non-zero when there is no cluster', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-engine-none-'));
    try {
      const r = run(dir, ['status']);
      expect(r.status).toBe(3);
      expect(r.stderr).toContain('no cluster in');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints a systemd unit that runs the watchdog for this checkout', () => {
    const r = run('/srv/payrun-engine', ['systemd-unit']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`ExecStart=${join(ROOT, 'scripts', 'temporal-postgres.sh')} supervise`);
    expect(r.stdout).toContain('Environment="TEMPORAL_PG_DIR=/srv/payrun-engine"');
    expect(r.stdout).toContain('Restart=always');
  });
});
