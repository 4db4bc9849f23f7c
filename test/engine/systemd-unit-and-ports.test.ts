import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// scripts/temporal-postgres.sh's printed systemd unit and its port variables, without a cluster: `make test`
// runs these (the cluster-backed port test is in temporal-postgres.test.ts, under make test-prod).
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'temporal-postgres.sh');
const run = (args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8', env });

/** The unit's Environment= lines as systemd would set them ("NAME=value", quotes removed). */
const unitEnvironment = (unit: string): NodeJS.ProcessEnv =>
  Object.fromEntries([...unit.matchAll(/^Environment="?([A-Z_]+)=(.*?)"?$/gm)].map((m) => [m[1]!, m[2]!]));

const hasSystemdAnalyze =
  spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).status === 0;

describe('scripts/temporal-postgres.sh systemd-unit', () => {
  let dir = '';
  let unit = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'payrun-engine-unit-'));
    const r = run(['systemd-unit'], { ...process.env, TEMPORAL_PG_DIR: dir });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    unit = r.stdout;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the user it runs as and gives the script HOME, a PATH with node and the state folder', () => {
    const user = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
    expect(unit).toMatch(new RegExp(`^User=${user}$`, 'm'));
    const env = unitEnvironment(unit);
    expect(env).toMatchObject({ HOME: expect.stringMatching(/^\//), TEMPORAL_PG_DIR: dir });
    expect(env.PATH!.split(':')).toContain(join(process.execPath, '..'));
    expect(unit).toContain(`ExecStart=${SCRIPT} supervise`);
  });

  it('runs the script with exactly the environment the unit gives it (no HOME: unbound variable)', () => {
    // systemd starts a service with almost nothing in its environment: the unit's lines and little more.
    const r = run(['status'], unitEnvironment(unit));
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 3, // no cluster in the empty state folder: the script ran through to its verdict
      stderr: expect.stringContaining(`no cluster in ${dir}`),
    });
  });

  it('runs without HOME at all, reading the home folder from the password database', () => {
    const r = run(['status'], { PATH: process.env.PATH, TEMPORAL_PG_DIR: dir });
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 3,
      stderr: expect.stringContaining('no cluster in'),
    });
  });

  // Debian's systemd package brings it; a machine without systemd has nothing to install the unit into.
  (hasSystemdAnalyze ? it : it.skip)('passes systemd-analyze verify with no warning about the unit', () => {
    const file = join(dir, 'payrun-temporal.service');
    writeFileSync(file, unit);
    const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect({ status: r.status, unitWarnings: r.stderr.split('\n').filter((l) => l.includes(file)) }).toEqual({
      status: 0,
      unitWarnings: [],
    });
  });
});

describe("scripts/temporal-postgres.sh's port variables", () => {
  const start = (env: NodeJS.ProcessEnv) => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-engine-ports-'));
    try {
      return run(['start'], { ...process.env, TEMPORAL_PG_DIR: dir, ...env });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it.each([
    [
      { TEMPORAL_FRONTEND_GRPC_PORT: '7233x' },
      "TEMPORAL_FRONTEND_GRPC_PORT must be a port number, not '7233x'",
    ],
    [{ TEMPORAL_PORT_BASE: '-1' }, "TEMPORAL_PORT_BASE must be a port number, not '-1'"],
    [{ TEMPORAL_PG_PORT: '70000' }, 'TEMPORAL_PG_PORT: 70000 is above 65535'],
    // Temporal's PostgreSQL schema keeps membership ports in a smallint.
    [{ TEMPORAL_HISTORY_MEMBERSHIP_PORT: '40000' }, 'TEMPORAL_HISTORY_MEMBERSHIP_PORT: 40000 is above 32767'],
    [
      { TEMPORAL_PORT_BASE: '32760' },
      'TEMPORAL_PORT_BASE (+9 for WORKER_MEMBERSHIP_PORT): 32769 is above 32767',
    ],
    [{ TEMPORAL_PORT_BASE: '21000', TEMPORAL_METRICS_PORT: '21000' }, 'port 21000 is given to two'],
  ])(
    'refuses %j with exit 2 and a sentence naming the variable, before touching anything',
    (env, message) => {
      const r = start(env);
      expect({ status: r.status, stderr: r.stderr }).toEqual({
        status: 2,
        stderr: expect.stringContaining(message),
      });
    },
  );
});
