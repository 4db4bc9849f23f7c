import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { preferredPort } from '../devserver';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { startComponent, type Component } from './processes';

export const DEMO_PROJECT = 'payrun-demo';
export const TASK_QUEUE = 'payrun';

/** The partner key pair the demo signs with, generated once into `<dataDir>/keys/`. */
export function ensurePartnerKeys(dataDir: string): {
  privateKeyFile: string;
  publicKeyFile: string;
  created: boolean;
} {
  const dir = join(dataDir, 'keys');
  const privateKeyFile = join(dir, 'partner-private.pem');
  const publicKeyFile = join(dir, 'partner-public.pem');
  ensurePrivateDir(dir);
  if (existsSync(privateKeyFile) && existsSync(publicKeyFile))
    return { privateKeyFile, publicKeyFile, created: false };
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writePrivateFile(privateKeyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  writePrivateFile(publicKeyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  return { privateKeyFile, publicKeyFile, created: true };
}

/**
 * The demo's codec-server token, generated once into `<dataDir>/keys/codec-token` (0600). The demo's
 * UI is given an endpoint with the token in its path, so whoever opens http://localhost:8233 on this
 * machine reads decoded payloads: right for a loopback demo, never for production (docs/security.md).
 */
export function ensureCodecToken(dataDir: string): string {
  const file = join(dataDir, 'keys', 'codec-token');
  ensurePrivateDir(join(dataDir, 'keys'));
  if (!existsSync(file)) writePrivateFile(file, randomBytes(24).toString('hex'));
  return readFileSync(file, 'utf8').trim();
}

/** Polls `url` until it answers (any HTTP status) or the component dies. */
async function waitForHttp(url: string, component: Component, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`${component.name} did not answer at ${url} within ${timeoutMs} ms`);
    }
    await Promise.race([new Promise((r) => setTimeout(r, 200)), component.unexpectedExit]);
  }
}

export interface DemoStack {
  sandboxUrl: string;
  ingressUrl: string;
  /** The accounting console (`payrun console`). */
  consoleUrl: string;
  components: Component[];
}

/** The bank sandbox, the webhook ingress, a worker and the console, each as its own `payrun` process. */
export async function startDemoComponents(opts: {
  dataDir: string;
  logDir: string;
  temporalAddress: string;
  /** The dev key file every component encrypts with (src/temporal/keys.ts). */
  payloadKeysFile: string;
  /** Who may pay: the demo's people (src/demo/index.ts). */
  policyFile: string;
  /** The console's own identity in the policy (an authenticating service) and its key. */
  console: { serviceId: string; keyFile: string };
  codec: { port: number; token: string; uiOrigins: string[] };
}): Promise<DemoStack> {
  const keys = ensurePartnerKeys(opts.dataDir);
  const sandboxPort = await preferredPort(8090);
  const ingressPort = await preferredPort(8080);
  const ingressInternalPort = await preferredPort(8081);
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const ingressUrl = `http://127.0.0.1:${ingressPort}`;
  const sandboxDir = join(opts.dataDir, 'sandbox');
  const components: Component[] = [];
  let consoleUrl = '';
  const temporal = {
    TEMPORAL_ADDRESS: opts.temporalAddress,
    PAYRUN_TASK_QUEUE: TASK_QUEUE,
    PAYRUN_PAYLOAD_KEYS_FILE: opts.payloadKeysFile,
    PAYRUN_DATA_DIR: opts.dataDir,
    PAYRUN_POLICY_FILE: opts.policyFile,
  };
  const bankPublicKeyFile = join(sandboxDir, 'bank-public.pem');
  try {
    const sandbox = startComponent(
      'sandbox',
      ['sandbox'],
      {
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_PROJECT_ID: DEMO_PROJECT,
        SANDBOX_PARTNER_PUBLIC_KEY_FILE: keys.publicKeyFile,
        SANDBOX_DATA_DIR: sandboxDir,
        SANDBOX_WEBHOOK_URL: `${ingressUrl}/webhooks/bank`,
      },
      opts.logDir,
    );
    components.push(sandbox);
    await waitForHttp(`${sandboxUrl}/__admin/clock`, sandbox);

    const codecServer = startComponent(
      'codec-server',
      ['codec-server'],
      {
        ...temporal,
        PAYRUN_CODEC_PORT: String(opts.codec.port),
        PAYRUN_CODEC_HOST: '127.0.0.1',
        PAYRUN_CODEC_TOKEN: opts.codec.token,
        PAYRUN_CODEC_CORS_ORIGINS: opts.codec.uiOrigins.join(','),
      },
      opts.logDir,
    );
    components.push(codecServer);
    await waitForHttp(`http://127.0.0.1:${opts.codec.port}/decode`, codecServer);

    const ingress = startComponent(
      'ingress',
      ['ingress'],
      {
        ...temporal,
        INGRESS_PORT: String(ingressPort),
        INGRESS_HOST: '127.0.0.1',
        INGRESS_INTERNAL_PORT: String(ingressInternalPort),
        BANK_ENV: 'test',
        BANK_PUBLIC_KEY_TEST_FILE: bankPublicKeyFile,
      },
      opts.logDir,
    );
    components.push(ingress);
    await waitForHttp(`${ingressUrl}/`, ingress);

    // The defaults when free; another worker on this machine holds them otherwise (a taken one exits 2).
    const workerMetrics = `127.0.0.1:${await preferredPort(9465)}`;
    const workerSdkMetrics = `127.0.0.1:${await preferredPort(9464)}`;
    components.push(
      startComponent(
        'worker',
        ['worker'],
        {
          ...temporal,
          PAYRUN_WORKER_METRICS_ADDRESS: workerMetrics,
          PAYRUN_WORKER_SDK_METRICS_ADDRESS: workerSdkMetrics,
          BANK_ENV: 'test',
          BANK_BASE_URL_TEST: sandboxUrl,
          BANK_PUBLIC_KEY_TEST_FILE: bankPublicKeyFile,
          PARTNER_PROJECT: DEMO_PROJECT,
          PARTNER_PRIVATE_KEY_FILE: keys.privateKeyFile,
          PAYER_TYPE: 'legal',
          PAYER_TAX_NUMBER: '7707083893',
          PAYER_NAME: 'ООО «Пэйран Демо»',
        },
        opts.logDir,
      ),
    );

    const consolePort = await preferredPort(8070);
    consoleUrl = `http://127.0.0.1:${consolePort}`;
    const consoleApp = startComponent(
      'console',
      ['console'],
      {
        ...temporal,
        PAYRUN_BATCHES_DIR: join(opts.dataDir, 'batches'),
        PAYRUN_CONSOLE_HOST: '127.0.0.1',
        PAYRUN_CONSOLE_PORT: String(consolePort),
        PAYRUN_CONSOLE_SERVICE_ID: opts.console.serviceId,
        PAYRUN_CONSOLE_KEY_FILE: opts.console.keyFile,
        // The demo's approvers sign in with the published password alone (on loopback, demo money);
        // anywhere else an approver needs a TOTP code too.
        PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR: 'optional',
        // The dry run asks the bank (the sandbox) for tax numbers and the deposit.
        BANK_ENV: 'test',
        BANK_BASE_URL_TEST: sandboxUrl,
        BANK_PUBLIC_KEY_TEST_FILE: bankPublicKeyFile,
        PARTNER_PROJECT: DEMO_PROJECT,
        PARTNER_PRIVATE_KEY_FILE: keys.privateKeyFile,
      },
      opts.logDir,
    );
    components.push(consoleApp);
    await waitForHttp(`${consoleUrl}/healthz`, consoleApp);
  } catch (err) {
    for (const c of components.reverse()) await c.stop();
    throw err;
  }
  return { sandboxUrl, ingressUrl, consoleUrl, components };
}
