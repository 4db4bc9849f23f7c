import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { writePolicy } from '../../src/policy/generate';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { batchCsv, uniquePrefix } from '../harness/batches';
import { postgresAvailable, startScratchPostgres, type ScratchPostgres } from '../harness/postgres';
import { temporalAddress } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_120S = underLoad(120_000);
const TIMEOUT_180S = underLoad(180_000);
const TIMEOUT_240S = underLoad(240_000);
const TIMEOUT_300S = underLoad(300_000);

/**
 * Compose's payrun services started as processes (no Docker here) with exactly what compose gives them: the
 * image's NODE_ENV, the service's `environment:` and README's `.env.production` lines, nothing from this
 * test's own environment but PATH. Only what names a place is pointed at this machine: compose's hosts at
 * the test's Temporal server, /run/secrets/* at files made here, /app/* at temporary folders, ports at free
 * ones. Each must pass its own compose healthcheck; a variable missing from compose or README stops a
 * service with exit 2 naming it, and the test shows that output.
 */
const ROOT = join(__dirname, '..', '..');
const SERVICES = ['worker', 'ingress', 'console', 'codec-server', 'watch'] as const;

interface Service {
  command: string[];
  environment: Record<string, string | number>;
  env_file?: string;
  secrets?: string[];
  healthcheck: { test: string[] };
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};

/** README's `.env.production` block: NAME=value lines, `<…>` a value the operator fills in. */
function readmeEnvProduction(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const production = readme.slice(readme.indexOf('## Production'));
  const block = /```sh\n([\s\S]*?)```/.exec(production.slice(0, production.indexOf('\n## ', 1)))?.[1];
  if (!block) throw new Error("README.md's Production section has no ```sh block of .env.production lines");
  return Object.fromEntries(
    block
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Compose's `${NAME:-default}` as compose with no such variable set resolves it. */
const interpolate = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

interface Running {
  name: string;
  child: ChildProcess;
  output: () => string;
  healthcheck: string[];
}

const RUN = postgresAvailable();
(RUN ? describe : describe.skip)(
  "compose's payrun services from compose's environment and README's .env.production",
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-compose-env-'));
    const secrets = join(dir, 'secrets');
    const batches = join(dir, 'batches');
    let pg: ScratchPostgres;
    let sandbox: RunningSandbox;
    const running: Running[] = [];
    /** compose port → the free port standing in for it, one per compose port. */
    const ports = new Map<string, string>();

    beforeAll(async () => {
      pg = await startScratchPostgres();
      const partner = generateKeyPairSync('rsa', { modulusLength: 2048 });
      sandbox = await startSandbox({
        projects: [
          {
            id: 'compose-env',
            publicKeyPem: partner.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          },
        ],
        optionalWebhooks: true,
      });
      mkdirSync(secrets, { recursive: true });
      for (const sub of ['inbox', 'processing', 'done', 'rejected'])
        mkdirSync(join(batches, sub), { recursive: true });
      // The service identities compose names: the watcher submits (role service), the console signs people in.
      const policy = writePolicy(
        join(dir, 'policy'),
        [
          { id: 'inbox', name: 'inbox watcher', roles: ['service'] },
          { id: 'console', name: 'Консоль бухгалтерии', roles: ['authenticator'] },
          { id: 'approver', name: 'Олег Утвердилов', roles: ['approver'] },
        ],
        { dropped_files_need_approval: true },
      );
      const files: Record<string, string> = {
        payload_keys: `k1:${randomBytes(32).toString('base64')}\n`,
        partner_private_key: partner.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        bank_public_key: sandbox.bankPublicKeyPem,
        codec_token: `${randomBytes(24).toString('hex')}\n`,
        policy: readFileSync(policy.file, 'utf8'),
        watcher_key: readFileSync(policy.keyFiles.inbox!, 'utf8'),
        console_key: readFileSync(policy.keyFiles.console!, 'utf8'),
        batch_store_url: `${pg.url}\n`,
        workflow_id_secret: `${randomBytes(32).toString('base64')}\n`,
      };
      for (const [name, text] of Object.entries(files))
        writeFileSync(join(secrets, name), text, { mode: 0o400 });
    });

    afterAll(async () => {
      await Promise.all(running.map((r) => stop(r.child)));
      await sandbox?.close();
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** README's lines with each `<…>` filled in as an operator would, pointing at this test's bank. */
    function envProduction(): Record<string, string> {
      const fill: Record<string, string> = {
        PARTNER_PROJECT: 'compose-env',
        BANK_BASE_URL_LIVE: sandbox.url,
        PAYER_TAX_NUMBER: '7707083893',
        PAYER_NAME: 'ООО Ромашка',
      };
      return Object.fromEntries(
        Object.entries(readmeEnvProduction()).map(([name, value]) => {
          if (!/^<.*>$/.test(value)) return [name, value];
          if (!(name in fill))
            throw new Error(`README's .env.production names ${name}: teach this test its value`);
          return [name, fill[name]!];
        }),
      );
    }

    /** A compose value with its places pointed at this machine. */
    async function local(service: string, name: string, raw: string | number): Promise<string> {
      let value = interpolate(String(raw));
      if (value === 'temporal:7233') return temporalAddress();
      if (value.startsWith('/run/secrets/')) return join(secrets, value.slice('/run/secrets/'.length));
      if (value === '/app/batches') return batches;
      if (value === '/app/data') return mkdtempSync(join(dir, `${service}-data-`));
      if (name.endsWith('_HOST') && value === '0.0.0.0') return '127.0.0.1';
      const port = /^(?:0\.0\.0\.0:)?(\d+)$/.exec(value)?.[1];
      if (port && (name.endsWith('_PORT') || name.endsWith('_ADDRESS'))) {
        if (!ports.has(port)) ports.set(port, String(await freePort()));
        value = value.startsWith('0.0.0.0:') ? `127.0.0.1:${ports.get(port)}` : ports.get(port)!;
      }
      return value;
    }

    /** The healthcheck's arguments with compose's ports and folders mapped as the environment's are. */
    const localHealthcheck = (args: string[]) =>
      args.map((a) =>
        a
          .replace(/:(\d+)\//, (m, port: string) => (ports.has(port) ? `:${ports.get(port)}/` : m))
          .replace(/^\/app\/batches/, batches),
      );

    async function start(name: (typeof SERVICES)[number]): Promise<Running> {
      const svc = compose.services[name]!;
      expect(svc.env_file).toBe('.env.production');
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        NODE_ENV: 'production', // the image's (Dockerfile)
        ...envProduction(),
      };
      for (const [k, v] of Object.entries(svc.environment)) env[k] = await local(name, k, v);
      const child = spawn(
        process.execPath,
        [
          '-r',
          join(ROOT, 'test', 'harness', 'ts-register.js'),
          join(ROOT, 'src', 'cli', 'index.ts'),
          ...svc.command,
        ],
        { cwd: mkdtempSync(join(dir, `${name}-cwd-`)), env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const r = {
        name,
        child,
        output: () => output,
        healthcheck: localHealthcheck(svc.healthcheck.test.slice(3)),
      };
      running.push(r);
      return r;
    }

    const healthy = (args: string[]) =>
      new Promise<boolean>((resolve) =>
        spawn(process.execPath, [join(ROOT, 'deploy', 'healthcheck.js'), ...args], { stdio: 'ignore' }).once(
          'exit',
          (code) => resolve(code === 0),
        ),
      );

    /** Healthy by compose's own check; a service that exits first fails the test with its output. */
    async function untilHealthy(r: Running) {
      await waitFor(
        async () => {
          if (r.child.exitCode !== null)
            throw new Error(`${r.name} exited ${r.child.exitCode} before it was healthy:\n${r.output()}`);
          return healthy(r.healthcheck);
        },
        TIMEOUT_240S,
        `${r.name} to pass its compose healthcheck (${r.healthcheck.join(' ')})`,
      );
    }

    it(
      'starts the worker, ingress, console, codec server and watcher; each passes its healthcheck',
      async () => {
        const started = [];
        for (const name of SERVICES) started.push(await start(name));
        for (const r of started) await untilHealthy(r);
      },
      TIMEOUT_300S,
    );

    it(
      'the watcher submits a file dropped into the inbox (its healthcheck alone passes on an empty inbox)',
      async () => {
        const file = `${uniquePrefix()}.csv`;
        writeFileSync(join(batches, 'inbox', file), batchCsv([{ reference: `${uniquePrefix()}-1` }]));
        const watcher = running.find((r) => r.name === 'watch')!;
        await waitFor(
          async () => {
            if (watcher.child.exitCode !== null) throw new Error(`watch exited:\n${watcher.output()}`);
            return (
              !existsSync(join(batches, 'inbox', file)) && readdirSync(join(batches, 'rejected')).length === 0
            );
          },
          TIMEOUT_120S,
          `the watcher to take ${file} from the inbox`,
        );
        expect(readdirSync(join(batches, 'rejected'))).toEqual([]);
      },
      TIMEOUT_180S,
    );
  },
);

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
