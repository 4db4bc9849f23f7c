import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { writePolicy } from '../../src/policy/generate';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { postgresAvailable, startScratchPostgres, type ScratchPostgres } from '../harness/postgres';
import { waitFor } from '../harness/wait';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_180S = underLoad(180_000);
const TIMEOUT_240S = underLoad(240_000);
const TIMEOUT_600S = underLoad(600_000);

/**
 * The Helm chart's pods as processes (no cluster here): each Deployment's container started with exactly the
 * arguments and environment the chart renders, the image's NODE_ENV and nothing of this test's environment
 * but PATH, after the migration hook's command. Only places are pointed at this machine: Temporal and the
 * bank through the chart's own values, the secret files (/run/secrets/payrun/…) at files made here, /app/* at
 * temporary folders, ports at free ones. Then every probe the chart declares must pass as the kubelet would
 * run it: a variable the chart forgets stops a process with exit 2 naming it, shown by the test.
 */
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'payrun');
const HELM = execFileSync(join(ROOT, 'scripts', 'ensure-helm.sh'), ['--check'], { encoding: 'utf8' }).trim();
// The run's server (test/harness/global-setup.ts), namespace default with payrun's search attributes.
const temporalAddress = () => process.env.PAYRUN_TEST_TEMPORAL_ADDRESS!;

interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
}
interface Container {
  args: string[];
  env: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}
interface Rendered {
  kind: string;
  metadata: { name: string };
  spec: { template: { spec: { containers: Container[] } } };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const RUN = postgresAvailable();
(RUN ? describe : describe.skip)("the chart's pods from the chart's own arguments and environment", () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-helm-env-'));
  const secrets = join(dir, 'secrets');
  const batches = join(dir, 'batches');
  let pg: ScratchPostgres;
  let sandbox: RunningSandbox;
  let objects: Rendered[] = [];
  const running: { name: string; child: ChildProcess; output: () => string }[] = [];
  /** A port the chart names → the free port standing in for it. */
  const ports = new Map<number, number>();

  beforeAll(async () => {
    pg = await startScratchPostgres();
    const partner = generateKeyPairSync('rsa', { modulusLength: 2048 });
    sandbox = await startSandbox({
      projects: [
        {
          id: 'helm-env',
          publicKeyPem: partner.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        },
      ],
      optionalWebhooks: true,
    });
    const policy = writePolicy(join(dir, 'policy'), [
      { id: 'inbox', name: 'inbox watcher', roles: ['service'] },
      { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
      { id: 'approver', name: 'Олег Утвердилов', roles: ['approver'] },
    ]);
    // values.yaml's secrets: each file where the chart mounts it (/run/secrets/payrun/<secret>/<key>).
    const files: Record<string, string> = {
      'payload-keys/payload-keys': `k1:${randomBytes(32).toString('base64')}\n`,
      'workflow-id-secret/workflow-id-secret': `${randomBytes(32).toString('base64')}\n`,
      'partner-private-key/partner-private-key.pem': partner.privateKey
        .export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      'bank-public-key/bank-public-key.pem': sandbox.bankPublicKeyPem,
      'policy/policy.yaml': readFileSync(policy.file, 'utf8'),
      'codec-token/codec-token': `${randomBytes(24).toString('hex')}\n`,
      'watcher-key/watcher-key.pem': readFileSync(policy.keyFiles.inbox!, 'utf8'),
      'console-key/console-key.pem': readFileSync(policy.keyFiles.console!, 'utf8'),
      'batch-store-url/batch-store-url': `${pg.url}\n`,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(secrets, path)), { recursive: true });
      writeFileSync(join(secrets, path), text, { mode: 0o400 });
    }
    mkdirSync(batches);
    const rendered = execFileSync(
      HELM,
      [
        'template',
        'r1',
        CHART,
        '-f',
        join(CHART, 'ci', 'minimal-values.yaml'),
        ...['--set', `temporal.address=${temporalAddress()}`, '--set', 'temporal.namespace=default'],
        ...['--set', `bank.baseUrl=${sandbox.url}`, '--set', 'partner.project=helm-env'],
      ],
      { encoding: 'utf8' },
    );
    objects = parseAllDocuments(rendered)
      .map((d) => d.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null);
  }, TIMEOUT_180S);

  afterAll(async () => {
    await Promise.all(running.map((r) => stop(r.child)));
    await sandbox?.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function localPort(port: number): Promise<number> {
    if (!ports.has(port)) ports.set(port, await freePort());
    return ports.get(port)!;
  }

  /** A rendered value with its places pointed at this machine. */
  async function local(name: string, value: string, service: string): Promise<string> {
    if (value.startsWith('/run/secrets/payrun/'))
      return join(secrets, value.slice('/run/secrets/payrun/'.length));
    if (value === '/app/batches') return batches;
    if (value === '/app/data') return mkdtempSync(join(dir, `${service}-data-`));
    if (name.endsWith('_HOST') && value === '0.0.0.0') return '127.0.0.1';
    const port = /^(?:0\.0\.0\.0:)?(\d+)$/.exec(value)?.[1];
    if (port && (name.endsWith('_PORT') || name.endsWith('_ADDRESS'))) {
      const free = await localPort(Number(port));
      return value.startsWith('0.0.0.0:') ? `127.0.0.1:${free}` : String(free);
    }
    return value;
  }

  async function start(
    name: string,
    c: Container,
  ): Promise<{ name: string; child: ChildProcess; output: () => string }> {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NODE_ENV: 'production' }; // the image's
    for (const e of c.env) env[e.name] = await local(e.name, e.value, name);
    const child = spawn(
      process.execPath,
      [
        '-r',
        join(ROOT, 'test', 'harness', 'ts-register.js'),
        join(ROOT, 'src', 'cli', 'index.ts'),
        ...c.args,
      ],
      { cwd: mkdtempSync(join(dir, `${name}-cwd-`)), env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString('utf8')));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString('utf8')));
    const r = { name, child, output: () => output };
    running.push(r);
    return r;
  }

  /** One probe, as the kubelet runs it: a 2xx/3xx answer, a connection, or exit 0. */
  async function passes(c: Container, probe: Probe): Promise<boolean> {
    const portOf = async (p: string | number) =>
      localPort(typeof p === 'number' ? p : c.ports!.find((x) => x.name === p)!.containerPort);
    if (probe.httpGet) {
      const url = `http://127.0.0.1:${await portOf(probe.httpGet.port)}${probe.httpGet.path}`;
      return fetch(url, { signal: AbortSignal.timeout(4000) }).then(
        (res) => res.status >= 200 && res.status < 400,
        () => false,
      );
    }
    if (probe.tcpSocket) {
      const port = await portOf(probe.tcpSocket.port);
      return new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    }
    // exec: in the image's /app, so a relative deploy/healthcheck.js is the checkout's.
    const [cmd, ...args] = probe.exec!.command.map((a) =>
      a.startsWith('/app/batches') ? a.replace('/app/batches', batches) : a,
    );
    return new Promise((resolve) =>
      spawn(cmd === 'node' ? process.execPath : cmd!, args, { cwd: ROOT, stdio: 'ignore' }).once(
        'exit',
        (code) => resolve(code === 0),
      ),
    );
  }

  it(
    'the migration hook prepares the store, then worker, ingress, console, codec server and watcher pass every probe',
    async () => {
      const migrate = objects.find(
        (o) => o.kind === 'Job' && o.metadata.name.endsWith('-batch-store-migrate'),
      )!;
      const hook = await start('batch-store-migrate', migrate.spec.template.spec.containers[0]!);
      await waitFor(async () => hook.child.exitCode !== null, 120_000, 'the migration hook to end');
      expect({ exit: hook.child.exitCode, output: hook.output() }).toEqual({
        exit: 0,
        output: expect.any(String),
      });

      const deployments = objects.filter((o) => o.kind === 'Deployment');
      expect(deployments.map((d) => d.metadata.name).sort()).toEqual(
        ['codec-server', 'console', 'ingress', 'watcher', 'worker'].map((n) => `r1-payrun-${n}`),
      );
      const started = [];
      for (const d of deployments) {
        const c = d.spec.template.spec.containers[0]!;
        started.push({ r: await start(d.metadata.name, c), c });
      }
      for (const { r, c } of started)
        for (const [kind, probe] of Object.entries({
          startup: c.startupProbe,
          readiness: c.readinessProbe,
          liveness: c.livenessProbe,
        })) {
          if (!probe) continue;
          await waitFor(
            async () => {
              if (r.child.exitCode !== null)
                throw new Error(
                  `${r.name} exited ${r.child.exitCode} before its ${kind} probe passed:\n${r.output()}`,
                );
              return passes(c, probe);
            },
            TIMEOUT_240S,
            `${r.name}'s ${kind} probe (${JSON.stringify(probe)})`,
          );
        }
    },
    TIMEOUT_600S,
  );
});

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
