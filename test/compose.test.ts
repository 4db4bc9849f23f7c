import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BANK_WEBHOOK_IPS } from '../src/config';
import { TEMPORAL_DYNAMIC_CONFIG } from '../src/devserver/dynamic-config';
import { SEARCH_ATTRIBUTES } from '../workflows/shared/search-attributes';

// No Docker engine runs here, so the production wiring is checked by reading the file.
interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number>;
  ports?: string[];
  expose?: string[];
  healthcheck?: { test: string[] | string };
  depends_on?: string[] | Record<string, { condition: string }>;
  env_file?: string;
  entrypoint?: string[] | string;
  secrets?: string[];
  restart?: string;
}
const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8')) as {
  name?: string;
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
};
const s = compose.services;
const HEALTHCHECK = join(__dirname, '..', 'deploy', 'healthcheck.js');
/** A payrun service's healthcheck: ['CMD', 'node', 'deploy/healthcheck.js', ...args] in the image's /app. */
const healthcheckArgs = (name: string): string[] => {
  const test = s[name]!.healthcheck!.test;
  expect(Array.isArray(test) && test.slice(0, 3)).toEqual(['CMD', 'node', 'deploy/healthcheck.js']);
  return (test as string[]).slice(3);
};
const runHealthcheck = (args: string[]) =>
  new Promise<number | null>((resolve) =>
    spawn(process.execPath, [HEALTHCHECK, ...args], { stdio: 'ignore' }).once('exit', resolve),
  );
const dependsOn = (svc: Service) =>
  Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});

describe('docker-compose.yml (production)', () => {
  it('has PostgreSQL, Temporal, its UI, the payrun worker and ingress', () => {
    expect(Object.keys(s)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'worker', 'ingress']),
    );
  });

  it('runs Temporal (auto-setup) on that PostgreSQL', () => {
    expect(s.temporal!.image).toMatch(/^temporalio\/auto-setup:/);
    expect(s.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(dependsOn(s.temporal!)).toContain('postgresql');
  });

  it('points the worker and ingress at the Temporal server and runs payrun commands', () => {
    for (const name of ['worker', 'ingress']) {
      expect(s[name]!.environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(s[name]!.image ?? s[name]!.build).toBeDefined();
      expect(s[name]!.command).toEqual([name]);
    }
    expect(s.worker!.build).toBe('.');
  });

  it('publishes the ingress port it listens on and allows only the bank addresses', () => {
    const port = String(s.ingress!.environment!.INGRESS_PORT);
    expect(s.ingress!.ports!.some((p) => p.endsWith(`:${port}`))).toBe(true);
    expect(String(s.ingress!.environment!.INGRESS_ALLOWED_IPS).split(',')).toEqual([...BANK_WEBHOOK_IPS]);
  });

  it('keeps the ingress health and metrics port off the published ports and checks health there', () => {
    const env = s.ingress!.environment!;
    const internal = String(env.INGRESS_INTERNAL_PORT);
    expect(internal).not.toBe(String(env.INGRESS_PORT));
    expect(s.ingress!.ports).toHaveLength(1);
    expect(s.ingress!.ports!.some((p) => p.split(':').includes(internal))).toBe(false);
    expect(s.ingress!.expose).toEqual([internal]);
    expect(healthcheckArgs('ingress')).toEqual(['ok', `http://127.0.0.1:${internal}/healthz`]);
  });

  it("the payrun services' HTTP healthchecks pass on the answer they want and fail otherwise", async () => {
    const checks = {
      ingress: { path: '/healthz', healthy: [200], unhealthy: [503] },
      worker: { path: '/ready', healthy: [200], unhealthy: [503] },
      'codec-server': { path: '/', healthy: [200, 401], unhealthy: [] },
    };
    for (const [name, want] of Object.entries(checks)) {
      const [mode, url] = healthcheckArgs(name);
      expect({ name, path: new URL(url!).pathname }).toEqual({ name, path: want.path });
      for (const status of [...want.healthy, ...want.unhealthy]) {
        const server = createServer((req, res) => {
          res.writeHead(req.url === want.path ? status : 404).end();
        });
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        const { port } = server.address() as AddressInfo;
        try {
          const local = new URL(url!);
          local.port = String(port);
          const code = await runHealthcheck([mode!, local.toString()]);
          expect({ name, status, code }).toEqual({
            name,
            status,
            code: want.healthy.includes(status) ? 0 : 1,
          });
        } finally {
          server.close();
        }
      }
      // Nothing listening: unhealthy.
      expect({ name, code: await runHealthcheck([mode!, 'http://127.0.0.1:1/']) }).toEqual({ name, code: 1 });
    }
  });

  it("checks the worker's health on the payrun metrics port it is told to serve", () => {
    const port = String(s.worker!.environment!.PAYRUN_WORKER_METRICS_ADDRESS).split(':').pop();
    expect(healthcheckArgs('worker')).toEqual(['ok', `http://127.0.0.1:${port}/ready`]);
  });

  it("the watcher's healthcheck fails once a file has waited in the inbox longer than its limit", async () => {
    const [mode, inbox, seconds] = healthcheckArgs('watch');
    expect(mode).toBe('inbox');
    expect(inbox).toBe(`${String(s.watch!.environment!.PAYRUN_BATCHES_DIR)}/inbox`);
    // Longer than a few of the watcher's 5 s polls, short enough to notice within the hour.
    expect(Number(seconds)).toBeGreaterThanOrEqual(60);
    expect(Number(seconds)).toBeLessThanOrEqual(1800);
    const dir = mkdtempSync(join(tmpdir(), 'payrun-compose-inbox-'));
    writeFileSync(join(dir, '.gitkeep'), '');
    utimesSync(join(dir, '.gitkeep'), new Date(0), new Date(0));
    expect(await runHealthcheck(['inbox', dir, seconds!])).toBe(0); // empty but for a dot file
    writeFileSync(join(dir, 'payouts.csv'), 'x');
    expect(await runHealthcheck(['inbox', dir, seconds!])).toBe(0); // just dropped
    const old = new Date(Date.now() - (Number(seconds) + 60) * 1000);
    utimesSync(join(dir, 'payouts.csv'), old, old);
    expect(await runHealthcheck(['inbox', dir, seconds!])).toBe(1); // waited too long
    expect(await runHealthcheck(['inbox', join(dir, 'missing'), seconds!])).toBe(1);
  });

  it('gives the worker, the watcher and the console one PostgreSQL batch store, and the folders to the watcher and console alone', () => {
    const volumes = (name: string) => (s[name] as Service & { volumes?: string[] }).volumes ?? [];
    for (const name of ['worker', 'watch', 'console'])
      expect(s[name]!.environment).toMatchObject({
        PAYRUN_BATCH_STORE: 'postgres',
        PAYRUN_BATCH_STORE_URL_FILE: '/run/secrets/batch_store_url',
      });
    for (const name of ['watch', 'console']) {
      expect(s[name]!.environment).toMatchObject({ PAYRUN_BATCHES_DIR: '/app/batches' });
      expect(volumes(name)).toContain('./batches:/app/batches');
    }
    // No folder of batches shared with the workers: they may run on any host.
    expect(volumes('worker').filter((v) => v.includes('batches'))).toEqual([]);
    // Nor any other named volume: reconciliation is in the store too; /app/data is each worker's scratch.
    expect(volumes('worker')).toEqual(['/app/data']);
    expect(s.worker!.depends_on).toHaveProperty('batch-store-setup');
    expect(s.watch!.command).toEqual(['watch']);
  });

  it('points the UI at the server', () => {
    expect(s['temporal-ui']!.environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('registers every payrun search attribute', () => {
    const cmd = ([] as string[]).concat(s['temporal-setup']!.command ?? []).join(' ');
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
      expect(cmd).toContain(`--name ${name} --type ${type}`);
    }
  });

  it('builds the image from what runs, not the benchmarks', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).not.toMatch(/^COPY bench/m);
    const image = JSON.parse(readFileSync(join(__dirname, '..', 'tsconfig.image.json'), 'utf8')) as {
      include: string[];
    };
    expect(image.include).toEqual(['src', 'workflows', 'activities']);
    expect(dockerfile).toMatch(/tsc -p tsconfig\.image\.json/);
  });

  it('builds an image from a Dockerfile that runs bin/payrun', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/payrun"\]/);
    expect(dockerfile).toMatch(/npm ci/);
  });

  it('publishes the Temporal frontend, the UI and the codec server on 127.0.0.1 only', () => {
    for (const name of ['temporal', 'temporal-ui', 'codec-server']) {
      expect(s[name]!.ports!.length).toBeGreaterThan(0);
      for (const p of s[name]!.ports!) expect(p).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('runs the codec server with the production env file and points the UI at it', () => {
    const codec = s['codec-server']!;
    expect(codec.command).toEqual(['codec-server']);
    expect(codec.env_file).toBe('.env.production');
    const port = String(codec.environment!.PAYRUN_CODEC_PORT);
    expect(codec.ports).toContain(`127.0.0.1:${port}:${port}`);
    const ui = s['temporal-ui']!.environment!;
    expect(ui.TEMPORAL_CODEC_ENDPOINT).toBe(`http://localhost:${port}`);
    // The UI origin the browser calls from must be the one the codec server's CORS allows.
    expect(String(codec.environment!.PAYRUN_CODEC_CORS_ORIGINS).split(',')).toContain(
      ui.TEMPORAL_CORS_ORIGINS,
    );
  });

  it('gives every payrun service the production env file and its payload keys as a secret file', () => {
    for (const name of ['worker', 'watch', 'ingress', 'codec-server']) {
      expect(s[name]!.env_file).toBe('.env.production');
      expect(s[name]!.environment!.PAYRUN_PAYLOAD_KEYS_FILE).toBe('/run/secrets/payload_keys');
    }
  });

  it("mounts the bank's private key in the worker alone, and each secret only where a variable reads it", () => {
    const mounting = Object.entries(s).filter(([, svc]) => svc.secrets?.includes('partner_private_key'));
    expect(mounting.map(([name]) => name)).toEqual(['worker']);
    for (const [name, svc] of Object.entries(s)) {
      const env = svc.environment ?? {};
      if (name !== 'worker') expect({ name, key: env.PARTNER_PRIVATE_KEY_FILE }).toEqual({ name });
      // Every secret a service mounts is named by one of its *_FILE variables, and every such variable
      // points at a secret the service mounts.
      const read = Object.values(env)
        .map(String)
        .filter((v) => v.startsWith('/run/secrets/'))
        .map((v) => v.slice('/run/secrets/'.length));
      expect({ name, secrets: [...(svc.secrets ?? [])].sort() }).toEqual({ name, secrets: [...read].sort() });
    }
    // Every declared secret is a file beside the compose file, outside git and the image's build context.
    const used = new Set(Object.values(s).flatMap((svc) => svc.secrets ?? []));
    expect(Object.keys(compose.secrets).sort()).toEqual([...used].sort());
    for (const { file } of Object.values(compose.secrets)) expect(file).toMatch(/^\.\/secrets\/[\w.-]+$/);
    const root = join(__dirname, '..');
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('secrets/');
    expect(readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['secrets', '.env*']),
    );
  });

  it('gives the workflow id secret to the worker and the console alone, as a file', () => {
    const mounting = Object.entries(s).filter(([, svc]) => svc.secrets?.includes('workflow_id_secret'));
    expect(mounting.map(([name]) => name).sort()).toEqual(['console', 'worker']);
    for (const [name, svc] of Object.entries(s))
      expect({ name, inline: svc.environment?.PAYRUN_WORKFLOW_ID_SECRET }).toEqual({ name });
    // README's .env.production block (every service's env_file) names no secret either.
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    expect(readme).not.toMatch(/^PAYRUN_WORKFLOW_ID_SECRET=/m);
  });

  it('gives the worker the policy file and the watcher a service identity that may only submit', () => {
    expect(s.worker!.environment?.PAYRUN_POLICY_FILE).toBe('/run/secrets/policy');
    expect(s.watch!.environment).toMatchObject({
      PAYRUN_PERSON: expect.stringMatching(/inbox/),
      PAYRUN_KEY_FILE: '/run/secrets/watcher_key',
    });
    // Its key signs submissions only; the worker judges them, the console signs people in from it, the
    // watcher checks its own statements against it before it starts.
    const withPolicy = Object.entries(s).filter(([, svc]) => svc.secrets?.includes('policy'));
    expect(withPolicy.map(([name]) => name).sort()).toEqual(['console', 'watch', 'worker']);
    expect(s.console!.environment).toMatchObject({
      PAYRUN_CONSOLE_KEY_FILE: '/run/secrets/console_key',
      PAYRUN_CONSOLE_TRUST_PROXY: 'true',
    });
    expect(s.console!.ports).toEqual(['127.0.0.1:8070:8070']);
  });

  it('has no top-level name (Debian\u2019s docker-compose 1.29 refuses it)', () => {
    expect(compose.name).toBeUndefined();
  });

  it('gives every long-running service a healthcheck', () => {
    for (const [name, svc] of Object.entries(s)) {
      if (svc.restart === 'no') continue; // temporal-setup: a one-shot, judged by its exit code
      expect({ name, restart: svc.restart }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, healthcheck: Boolean(svc.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
  });

  it('publishes only the ingress to the network, from a host port range that --scale can spread over', () => {
    for (const [name, svc] of Object.entries(s))
      for (const p of svc.ports ?? [])
        if (name !== 'ingress')
          expect({ name, p }).toEqual({ name, p: expect.stringMatching(/^127\.0\.0\.1:/) });
    expect(s.ingress!.ports).toEqual(['${INGRESS_HOST_PORTS:-8443}:8080']);
  });

  it('runs PostgreSQL with more connections than the Temporal pools the config template allows', () => {
    const template = readFileSync(join(__dirname, '..', 'deploy', 'temporal', 'config.yaml.tmpl'), 'utf8');
    const pool = (name: string) =>
      Number(new RegExp(`maxConns: \\{\\{ default \\.Env\\.${name} "(\\d+)" \\}\\}`).exec(template)![1]);
    // frontend, history, matching and worker each open both pools (one server process or four).
    const temporalPools = 4 * (pool('SQL_MAX_CONNS') + pool('SQL_VIS_MAX_CONNS'));
    expect(temporalPools).toBe(120);
    const command = ([] as string[]).concat(s.postgresql!.command ?? []).join(' ');
    const max = Number(/max_connections=(\d+)/.exec(command)?.[1]);
    expect(max).toBeGreaterThanOrEqual(temporalPools + 100);
    const script = readFileSync(join(__dirname, '..', 'scripts', 'temporal-postgres.sh'), 'utf8');
    expect(Number(/max_connections=(\d+)/.exec(script)?.[1])).toBeGreaterThan(temporalPools);
  });

  it('keeps the namespace retention the script uses: 72 hours', () => {
    const script = readFileSync(join(__dirname, '..', 'scripts', 'temporal-postgres.sh'), 'utf8');
    expect(script).toContain('RETENTION="${TEMPORAL_RETENTION:-72h}"');
    expect(s.temporal!.environment!.DEFAULT_NAMESPACE_RETENTION).toBe('72h');
  });

  it('registers the search attributes with an admin-tools image that carries the temporal CLI', () => {
    expect(s['temporal-setup']!.image).toMatch(/^temporalio\/admin-tools:[\d.]+-tctl-[\d.]+-cli-[\d.]+$/);
  });

  it('keeps the data dir owner-only in the image', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/chmod 0700 \/app\/data/);
  });

  it('copies the healthcheck script into the image where the healthchecks run it', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY deploy/healthcheck.js ./deploy/healthcheck.js');
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
  });
});

// Every image is one that exists: pinned by digest where public sources agree on one, otherwise an exact
// tag seen published (docs/operations.md, "Compose"). A change of image is a change of this list.
const PINNED_IMAGES = [
  // The digests of these tags' multi-platform indexes, as several public projects pin them.
  'postgres:16.4-bookworm@sha256:e62fbf9d3e2b49816a32c400ed2dba83e3b361e6833e624024309c35d334b412',
  'temporalio/auto-setup:1.29.1@sha256:5b3502a3b685f9eff1b925af90c57c9e3dbeccbef367cc28a2a9712c63379312',
  'prom/prometheus:v3.5.0@sha256:63805ebb8d2b3920190daf1cb14a60871b16fd38bed42b857a3182bc621f4996',
  'node:20.19.5-bookworm-slim@sha256:9e70124bd00f47dd023e349cd587132ae61892acc0e47ed641416c3e18f401c3',
  // Exact tags without a digest that two public sources agree on (temporalio/docker-compose#235: since
  // 1.24 admin-tools has no bare server-version tag).
  'temporalio/admin-tools:1.29.1-tctl-1.18.4-cli-1.5.0',
  'temporalio/ui:2.42.1',
  // Built from this repository's Dockerfile by the worker service.
  'payrun:latest',
];

describe('image references', () => {
  const root = join(__dirname, '..');

  it('are all on the pinned list: every service image and every Dockerfile FROM', () => {
    const images = Object.entries(s).map(([name, svc]) => ({ name, image: svc.image }));
    for (const { name, image } of images)
      expect({ name, pinned: PINNED_IMAGES.includes(image!) }).toEqual({ name, pinned: true });
    const froms = [...readFileSync(join(root, 'Dockerfile'), 'utf8').matchAll(/^FROM (\S+)/gm)].map(
      (m) => m[1]!,
    );
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms)
      expect({ from, pinned: PINNED_IMAGES.includes(from) }).toEqual({ from, pinned: true });
  });

  it('the list holds exact versions only: no latest but the local build, no bare major', () => {
    for (const ref of PINNED_IMAGES) {
      if (ref === 'payrun:latest') continue;
      const tag = ref.split('@')[0]!.split(':')[1]!;
      // PostgreSQL's releases are major.minor (16.4); everyone else's major.minor.patch.
      expect({ ref, exact: /^v?\d+\.\d+(\.\d+)?(-[\w.-]+)?$/.test(tag) }).toEqual({ ref, exact: true });
      if (ref.includes('@')) expect(ref).toMatch(/@sha256:[0-9a-f]{64}$/);
    }
    // Only the worker builds payrun:latest; the others reuse that image.
    expect(
      Object.entries(s)
        .filter(([, svc]) => svc.build)
        .map(([n]) => n),
    ).toEqual(['worker']);
  });
});

// Temporal on PostgreSQL: the compose `temporal` service and scripts/temporal-postgres.sh share one config
// template and one dynamic config (docs/operations.md, "Running Temporal on PostgreSQL").
describe('docker-compose.yml and scripts/temporal-postgres.sh (Temporal on PostgreSQL)', () => {
  const root = join(__dirname, '..');
  const script = join(root, 'scripts', 'temporal-postgres.sh');
  const volumes = (s.temporal as Service & { volumes?: string[] }).volumes ?? [];
  const mountOf = (file: string) => volumes.find((v) => v.startsWith(`./${file}:`))?.split(':');

  it('mounts the dynamic config the script runs with, and points the server at it', () => {
    const mount = mountOf('deploy/temporal/dynamicconfig.yaml');
    expect(mount).toEqual(['./deploy/temporal/dynamicconfig.yaml', expect.stringMatching(/^\//), 'ro']);
    expect(s.temporal!.environment!.DYNAMIC_CONFIG_FILE_PATH).toBe(mount![1]);
    expect(readFileSync(script, 'utf8')).toContain('"$ROOT/deploy/temporal/dynamicconfig.yaml"');
    const dynamic = parse(
      readFileSync(join(root, 'deploy', 'temporal', 'dynamicconfig.yaml'), 'utf8'),
    ) as Record<string, { value: unknown }[]>;
    // temporal-server's default of 10 refused payrun's ingress queries as rate-limited (issue 13).
    expect(dynamic['frontend.namespaceRPS.visibility']).toEqual([{ value: 100 }]);
    // The dev server of the tests and benches runs with the same values, no more and no fewer.
    expect(dynamic).toEqual(
      Object.fromEntries(Object.entries(TEMPORAL_DYNAMIC_CONFIG).map(([k, value]) => [k, [{ value }]])),
    );
  });

  it('mounts the config template the script renders, as the image template it renders at start', () => {
    expect(mountOf('deploy/temporal/config.yaml.tmpl')).toEqual([
      './deploy/temporal/config.yaml.tmpl',
      '/etc/temporal/config/config_template.yaml',
      'ro',
    ]);
    expect(readFileSync(script, 'utf8')).toContain('"$ROOT/deploy/temporal/config.yaml.tmpl"');
    expect(s.temporal!.environment!.NUM_HISTORY_SHARDS).toBe('${TEMPORAL_SHARDS:-4}');
  });

  it('renders the template to a postgres12 config from the images\u2019 variables (the script\u2019s renderer)', () => {
    const template = readFileSync(join(root, 'deploy', 'temporal', 'config.yaml.tmpl'), 'utf8');
    // Only forms dockerize (compose) and the script render alike.
    for (const [expr] of template.matchAll(/\{\{.*?\}\}/g))
      expect(expr).toMatch(/^\{\{ (default \.Env\.[A-Z0-9_]+ "[^"]*"|\.Env\.[A-Z0-9_]+) \}\}$/);
    const rendered = spawnSync('bash', [script, 'render-config'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NUM_HISTORY_SHARDS: '16',
        POSTGRES_SEEDS: 'db.internal',
        DB_PORT: '6543',
        BIND_ON_IP: '10.1.2.3',
        DYNAMIC_CONFIG_FILE_PATH: '/x/dyn.yaml',
      },
    });
    expect(rendered.status).toBe(0);
    const config = parse(rendered.stdout) as {
      persistence: { numHistoryShards: number; datastores: Record<string, { sql: Record<string, string> }> };
      services: Record<string, { rpc: { bindOnIP: string } }>;
      dynamicConfigClient: { filepath: string };
    };
    expect(config.persistence.numHistoryShards).toBe(16);
    for (const store of ['default', 'visibility'])
      expect(config.persistence.datastores[store]!.sql).toMatchObject({
        pluginName: 'postgres12',
        connectAddr: 'db.internal:6543',
      });
    expect(Object.keys(config.services).sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
    for (const svc of Object.values(config.services)) expect(svc.rpc.bindOnIP).toBe('10.1.2.3');
    expect(config.dynamicConfigClient.filepath).toBe('/x/dyn.yaml');
  });

  /** temporal-setup's command as compose runs it ($$ is compose's escape for $), with `temporal` and `sleep` from `bin`. */
  const runSetup = (failures: number) => {
    const bin = mkdtempSync(join(tmpdir(), 'payrun-compose-setup-'));
    const calls = join(bin, 'calls');
    // Stands in for the Temporal CLI: answers like a frontend that does not know the namespace yet.
    writeFileSync(
      join(bin, 'temporal'),
      `#!/bin/sh\necho "$*" >> ${calls}\nn=$(wc -l < ${calls})\nif [ "$n" -le ${failures} ]; then echo "Error: Namespace default is not found." >&2; exit 1; fi\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(bin, 'sleep'), '#!/bin/sh\n', { mode: 0o755 });
    const command = ([] as string[])
      .concat(s['temporal-setup']!.command ?? [])
      .join(' ')
      .replaceAll('$$', '$');
    expect(s['temporal-setup']!.entrypoint).toEqual(['sh', '-c']);
    const run = spawnSync('sh', ['-c', command], {
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, TEMPORAL_ADDRESS: 'temporal:7233' },
    });
    const lines = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
    return { status: run.status, stderr: run.stderr, calls: lines };
  };

  it('registers the search attributes once the namespace answers, retrying until then', () => {
    const run = runSetup(3);
    expect(run.status).toBe(0);
    expect(run.calls).toHaveLength(4);
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
      expect(run.calls[3]).toContain(`--name ${name} --type ${type}`);
  });

  it('fails loudly when the namespace never answers, so the payrun services do not start', () => {
    const run = runSetup(1000);
    expect(run.status).toBe(1);
    expect(run.calls).toHaveLength(60);
    expect(run.stderr).toContain(
      "temporal-setup: payrun's search attributes could not be registered on temporal:7233 in 2 minutes",
    );
    expect(s.worker!.depends_on).toMatchObject({
      'temporal-setup': { condition: 'service_completed_successfully' },
    });
  });
});

// Metrics: Prometheus scrapes what the services listen on, evaluates alerts the docs explain, and the
// dashboard shows every metric payrun defines (docs/operations.md, "Metrics and alerts").
describe('docker-compose.yml and deploy/ (metrics)', () => {
  const root = join(__dirname, '..');
  const prometheus = parse(readFileSync(join(root, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8')) as {
    rule_files: string[];
    scrape_configs: {
      job_name: string;
      dns_sd_configs?: { names: string[]; type: string; port: number }[];
      static_configs?: { targets: string[] }[];
    }[];
  };
  /** job → every service:port it scrapes. */
  const targets = (job: string): string[] => {
    const c = prometheus.scrape_configs.find((j) => j.job_name === job);
    if (!c) throw new Error(`deploy/prometheus/prometheus.yml has no job ${job}`);
    return [
      ...(c.dns_sd_configs ?? []).flatMap((d) => d.names.map((n) => `${n}:${d.port}`)),
      ...(c.static_configs ?? []).flatMap((t) => t.targets),
    ];
  };
  const portOf = (address: string | number | undefined) => String(address).split(':').pop();
  const promVolumes = (s.prometheus as Service & { volumes?: string[] }).volumes ?? [];

  it('scrapes the worker on the two addresses it is told to serve metrics on, exposed on the compose network only', () => {
    const env = s.worker!.environment!;
    const payrun = portOf(env.PAYRUN_WORKER_METRICS_ADDRESS);
    const sdk = portOf(env.PAYRUN_WORKER_SDK_METRICS_ADDRESS);
    // 0.0.0.0 inside the container: loopback (the default) would be unreachable from Prometheus.
    expect(String(env.PAYRUN_WORKER_METRICS_ADDRESS)).toMatch(/^0\.0\.0\.0:\d+$/);
    expect(String(env.PAYRUN_WORKER_SDK_METRICS_ADDRESS)).toMatch(/^0\.0\.0\.0:\d+$/);
    expect(payrun).not.toBe(sdk);
    expect(targets('payrun-worker')).toEqual([`worker:${payrun}`]);
    expect(targets('payrun-worker-sdk')).toEqual([`worker:${sdk}`]);
    expect([...(s.worker!.expose ?? [])].sort()).toEqual([payrun, sdk].sort());
    expect(s.worker!.ports).toBeUndefined();
  });

  it("scrapes temporal-server's own metrics on the address the temporal service is told to serve them", () => {
    const endpoint = String(s.temporal!.environment!.PROMETHEUS_ENDPOINT);
    expect(endpoint).toMatch(/^0\.0\.0\.0:\d+$/);
    const port = portOf(endpoint)!;
    expect(targets('temporal-server')).toEqual([`temporal:${port}`]);
    expect(s.temporal!.expose).toEqual([port]);
    // The template reads that variable (the script sets it to a loopback port of its own).
    const template = readFileSync(join(root, 'deploy', 'temporal', 'config.yaml.tmpl'), 'utf8');
    expect(template).toContain('listenAddress: "{{ default .Env.PROMETHEUS_ENDPOINT');
  });

  it("scrapes the ingress's internal port, never the bank-facing one", () => {
    const env = s.ingress!.environment!;
    expect(targets('payrun-ingress')).toEqual([`ingress:${String(env.INGRESS_INTERNAL_PORT)}`]);
    expect(targets('payrun-ingress')).not.toContain(`ingress:${String(env.INGRESS_PORT)}`);
  });

  it('runs Prometheus with that config and the alert rules, published on 127.0.0.1 only', () => {
    const p = s.prometheus!;
    expect(p.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+@sha256:[0-9a-f]{64}$/);
    const config = promVolumes.find((v) => v.startsWith('./deploy/prometheus/prometheus.yml:'))?.split(':');
    expect(config).toEqual(['./deploy/prometheus/prometheus.yml', expect.stringMatching(/^\//), 'ro']);
    expect(p.command).toContain(`--config.file=${config![1]}`);
    for (const rules of prometheus.rule_files)
      expect(promVolumes).toContain(`./deploy/prometheus/${rules.split('/').pop()}:${rules}:ro`);
    for (const port of p.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  const alerts = parse(readFileSync(join(root, 'deploy', 'prometheus', 'alerts.yml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const rules = alerts.groups.flatMap((g) => g.rules);
  const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');

  it('writes every alert in docs/operations.md with the expression Prometheus evaluates', () => {
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const r of rules) {
      expect({ alert: r.alert, documented: operations.includes(r.alert) }).toEqual({
        alert: r.alert,
        documented: true,
      });
      expect({ alert: r.alert, expr: operations.includes(r.expr) }).toEqual({ alert: r.alert, expr: true });
    }
  });

  it('watches the engine: its availability, persistence, payrun\u2019s task queue and the absence of every worker', () => {
    const byName = new Map(rules.map((r) => [r.alert, r.expr]));
    expect(byName.get('PayrunWorkersAbsent')).toBe('absent(up{job="payrun-worker"})');
    expect(byName.get('TemporalServerDown')).toContain('up{job="temporal-server"}');
    expect(byName.get('TemporalPersistenceErrors')).toContain('persistence_errors{job="temporal-server"}');
    expect(byName.get('TemporalPersistenceLatency')).toContain(
      'persistence_latency_bucket{job="temporal-server"}',
    );
    // Every queue a worker polls: payrun's and the recipients' ledgers' beside it.
    expect(byName.get('PayrunTaskQueueScheduleToStart')).toContain('taskqueue=~"payrun|payrun-recipients"');
    // payrun's task queue in compose is the one the alert watches.
    expect(s.worker!.environment!.PAYRUN_TASK_QUEUE).toBe('payrun');
    // Every engine metric an alert reads has a panel in the dashboard's engine row.
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'payrun.json'), 'utf8')) as {
      panels: { type: string; title: string; targets?: { expr: string }[] }[];
    };
    const rowAt = dashboard.panels.findIndex((p) => p.type === 'row' && p.title.includes('temporal-server'));
    expect(rowAt).toBeGreaterThanOrEqual(0);
    const next = dashboard.panels.findIndex((p, i) => i > rowAt && p.type === 'row');
    const engineExprs = dashboard.panels
      .slice(rowAt + 1, next < 0 ? undefined : next)
      .flatMap((p) => (p.targets ?? []).map((t) => t.expr))
      .join('\n');
    for (const metric of [
      'up{job="temporal-server"}',
      'persistence_errors{',
      'persistence_latency_bucket{',
      'task_schedule_to_start_latency_bucket{',
    ])
      expect({ metric, panel: engineExprs.includes(metric) }).toEqual({ metric, panel: true });
  });

  // promtool comes with Debian's prometheus package: scripts/check-alerts.sh installs it (as root), and
  // `make test-prod` runs that script; here the rules are tested wherever promtool is already installed.
  const promtool = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).status === 0;
  (promtool ? it : it.skip)(
    'every alert fires and stays quiet as deploy/prometheus/alerts.test.yml says (promtool)',
    () => {
      const run = spawnSync('bash', [join(root, 'scripts', 'check-alerts.sh')], { encoding: 'utf8' });
      expect({ status: run.status, out: run.stdout + run.stderr }).toEqual({
        status: 0,
        out: expect.stringContaining('SUCCESS'),
      });
      // Each alert has at least one test that expects it to fire.
      const tests = readFileSync(join(root, 'deploy', 'prometheus', 'alerts.test.yml'), 'utf8');
      for (const r of rules)
        expect({
          alert: r.alert,
          tested: new RegExp(`alertname: ${r.alert}\\n\\s+exp_alerts:\\n\\s+(#.*\\n\\s+)?- exp_labels`).test(
            tests,
          ),
        }).toEqual({ alert: r.alert, tested: true });
    },
  );

  it('alerts and the dashboard use only metrics payrun and the SDK export', async () => {
    const { IngressMetrics, WorkerMetrics } = await import('../src/metrics');
    const defined = new Set(
      [new IngressMetrics().registry, new WorkerMetrics().registry].flatMap((r) =>
        r.getMetricsAsArray().map((m) => m.name),
      ),
    );
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'payrun.json'), 'utf8')) as {
      panels: { type: string; targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const used = (text: string) =>
      [...text.matchAll(/\b(payrun_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1]!);
    // Every metric payrun defines has a panel…
    for (const name of defined)
      expect({ name, panel: exprs.some((e) => used(e).includes(name)) }).toEqual({ name, panel: true });
    // …and nothing on the dashboard or in the alerts names a payrun metric that does not exist.
    for (const text of [...exprs, ...rules.map((r) => r.expr)])
      for (const name of used(text))
        expect({ name, defined: defined.has(name) }).toEqual({ name, defined: true });
    // The SDK's schedule-to-start latency, which the scale-out and alerting depend on, has its panel.
    expect(exprs.some((e) => e.includes('temporal_workflow_task_schedule_to_start_latency_bucket'))).toBe(
      true,
    );
  });
});
