import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BANK_WEBHOOK_IPS } from '../src/config';
import { TEMPORAL_DYNAMIC_CONFIG } from '../src/devserver/dynamic-config';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

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
}
const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const s = compose.services;
/** The compose file runs it as ['CMD', 'node', '-e', script] inside the payrun image. */
const healthcheckScript = (): string => {
  const test = s.ingress!.healthcheck!.test;
  expect(Array.isArray(test) && test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  return (test as string[])[3]!;
};
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
    expect(healthcheckScript()).toContain(`http://127.0.0.1:${internal}/healthz`);
  });

  it('the ingress healthcheck command passes on a 200 from /healthz and fails otherwise', async () => {
    for (const status of [200, 503]) {
      const server = createServer((req, res) => {
        res.writeHead(req.url === '/healthz' ? status : 404).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      try {
        const script = healthcheckScript().replace(
          `127.0.0.1:${String(s.ingress!.environment!.INGRESS_INTERNAL_PORT)}`,
          `127.0.0.1:${port}`,
        );
        const code = await new Promise<number | null>((resolve) =>
          spawn(process.execPath, ['-e', script], { stdio: 'ignore' }).once('exit', resolve),
        );
        expect({ status, code }).toEqual({ status, code: status === 200 ? 0 : 1 });
      } finally {
        server.close();
      }
    }
  });

  it('gives the watcher and the worker the same batch store and batch folders', () => {
    const volumes = (name: string) => (s[name] as Service & { volumes?: string[] }).volumes ?? [];
    for (const name of ['worker', 'watch']) {
      expect(s[name]!.environment).toMatchObject({
        PAYRUN_DATA_DIR: '/app/data',
        PAYRUN_BATCHES_DIR: '/app/batches',
      });
      expect(volumes(name)).toEqual(
        expect.arrayContaining(['./batches:/app/batches', 'payrun-data:/app/data']),
      );
    }
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

  it('gives every payrun service the production env file, where PAYRUN_PAYLOAD_KEYS lives', () => {
    for (const name of ['worker', 'watch', 'ingress', 'codec-server'])
      expect(s[name]!.env_file).toBe('.env.production');
  });

  it('keeps the data dir owner-only in the image', () => {
    const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/chmod 0700 \/app\/data/);
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

  it("scrapes the ingress's internal port, never the bank-facing one", () => {
    const env = s.ingress!.environment!;
    expect(targets('payrun-ingress')).toEqual([`ingress:${String(env.INGRESS_INTERNAL_PORT)}`]);
    expect(targets('payrun-ingress')).not.toContain(`ingress:${String(env.INGRESS_PORT)}`);
  });

  it('runs Prometheus with that config and the alert rules, published on 127.0.0.1 only', () => {
    const p = s.prometheus!;
    expect(p.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
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
