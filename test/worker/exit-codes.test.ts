import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePolicy } from '../../src/policy/generate';
import { runCli } from '../harness/cli-process';
import { NO_APPROVALS, TEST_PAYER, TEST_PEOPLE } from '../harness/stack';

/** A port held open by this test, so the worker cannot bind it. */
function holdPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as { port: number }).port }),
    );
  });
}

/**
 * `payrun worker` as its own process: a configuration it cannot run with stops it before it connects
 * anywhere, exit 2 with the variable named (docs/operations.md, "Worker will not start"), never exit 1
 * with a bare system error, and never a worker running on without its health endpoints.
 */
describe('payrun worker refuses a configuration it cannot run with', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-exit-codes-'));
  const policy = writePolicy(dir, TEST_PEOPLE, NO_APPROVALS);
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const env: NodeJS.ProcessEnv = {
    // Nothing listens there: a worker that got past its configuration would wait to connect, not exit 2.
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    BANK_ENV: 'test',
    BANK_BASE_URL_TEST: 'http://127.0.0.1:1',
    PARTNER_PROJECT: 'payrun-test',
    PARTNER_PRIVATE_KEY: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    PAYER_TYPE: TEST_PAYER.payerType,
    PAYER_TAX_NUMBER: TEST_PAYER.payerTaxNumber,
    PAYER_NAME: TEST_PAYER.payerName,
    PAYRUN_POLICY_FILE: policy.file,
    PAYRUN_DATA_DIR: join(dir, 'data'),
    PAYRUN_WORKER_METRICS_ADDRESS: 'off',
    PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
  };

  it('exits 2 naming PARTNER_PRIVATE_KEY_FILE when that file is missing', async () => {
    const missing = join(dir, 'no-such-key.pem');
    const run = await runCli(['worker'], {
      ...env,
      PARTNER_PRIVATE_KEY: '',
      PARTNER_PRIVATE_KEY_FILE: missing,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining(`PARTNER_PRIVATE_KEY_FILE: cannot read ${missing}`),
    });
  });

  it('exits 2 naming BANK_PUBLIC_KEY_TEST_FILE when that file is missing', async () => {
    const missing = join(dir, 'no-such-bank-key.pem');
    const run = await runCli(['worker'], { ...env, BANK_PUBLIC_KEY_TEST_FILE: missing });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining(`BANK_PUBLIC_KEY_TEST_FILE: cannot read ${missing}`),
    });
  });

  it.each([
    ['PAYRUN_WORKER_METRICS_ADDRESS', '/metrics and /ready'],
    ['PAYRUN_WORKER_SDK_METRICS_ADDRESS', "the SDK's /metrics"],
  ])('exits 2 naming %s when its port is taken', async (variable, what) => {
    const { server, port } = await holdPort();
    try {
      const run = await runCli(['worker'], { ...env, [variable]: `127.0.0.1:${port}` });
      expect({ code: run.code, stderr: run.stderr }).toEqual({
        code: 2,
        stderr: expect.stringContaining(`${variable} (127.0.0.1:${port}): cannot`),
      });
      expect(run.stderr).toContain(what);
    } finally {
      server.close();
    }
  });
});
