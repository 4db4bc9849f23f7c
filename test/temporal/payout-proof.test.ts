import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePayoutProof } from '../../src/cli/payout-proof';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import { bankEventSignal } from '../../workflows/shared/bank-event-contract';
import { lookupPayout } from '../../src/batch/services/lookup';
import { moscowDay } from '../../src/reconcile/days';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import { QUICK_WAIT, reconcileDayNow, sandboxAdmin } from '../harness/reconciliation';
import { runCli } from '../harness/cli-process';
import { useLanguage } from '../harness/lang';
import { FAST, outcome, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/** The one openssl line VERIFY.txt gives, run in the proof's folder as an auditor would. */
function verify(dir: string): { status: number | null; out: string } {
  const line = readFileSync(join(dir, 'VERIFY.txt'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('openssl dgst '))!;
  expect(line).toBe('openssl dgst -sha256 -verify bank-public.pem -signature signature.bin body.json');
  const run = spawnSync('sh', ['-c', line], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, out: run.stdout.trim() };
}

// A deposit account of this file's own: reconciliation workflow ids name the account and the day.
const DEPOSIT_ACCOUNT = '40702810700000000078';

// Issue 37: every paid row carries the bank's signed proof, which openssl alone checks.
describe('payrun payout proof', () => {
  useLanguage('en');
  let stack: Stack;
  let genuine: { type: string; session: { id: string } } | undefined;
  const webhooks = async () =>
    (
      (await (await fetch(`${stack.sandbox.url}/__admin/webhooks`)).json()) as {
        deliveries: { body: { type: string; session: { id: string } } }[];
      }
    ).deliveries;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payrun-proof-data-'));
    process.env.PAYRUN_DATA_DIR = dataDir;
    stack = await startStack({ sandbox: { accounts: { deposit: DEPOSIT_ACCOUNT } } });
  });
  afterAll(async () => stack?.stop());

  it("writes the bank's signed payment_finished of a paid row; openssl verifies it, and not after one byte changed", async () => {
    const request = payoutRequest({ selfEmployed: false });
    const status = await outcome(await startPayout(stack, request));
    expect(status.state).toBe('succeeded');

    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-proof-')), 'proof');
    const proof = await writePayoutProof(
      stack.client,
      request.reference,
      dir,
      stack.sandbox.bankPublicKeyPem,
      dataDir,
    );
    expect(proof.sessionId).toBe(status.bank.sessionId);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'body.json')).mode & 0o777).toBe(0o600);
    const body = JSON.parse(readFileSync(join(dir, 'body.json'), 'utf8')) as {
      type: string;
      session: { id: string };
    };
    expect(body).toMatchObject({ type: 'payment_finished', session: { id: status.bank.sessionId } });
    // The body as the bank sent it: the sandbox's own delivery.
    const sent = (await webhooks()).find(
      (d) => d.body.type === 'payment_finished' && d.body.session.id === status.bank.sessionId,
    );
    expect(body).toEqual(sent!.body);
    genuine = sent!.body;
    expect(readFileSync(join(dir, 'VERIFY.txt'), 'utf8')).toContain(proof.fingerprint);
    // The fingerprint is the one openssl computes from the key file, and the key is the sandbox bank's.
    const der = spawnSync(
      'sh',
      ['-c', 'openssl pkey -pubin -in bank-public.pem -outform DER | openssl dgst -sha256 -r'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(der.stdout.split(' ')[0]).toBe(proof.fingerprint.replace(/:/g, ''));
    expect(
      createPublicKey(readFileSync(join(dir, 'bank-public.pem'))).equals(
        createPublicKey(stack.sandbox.bankPublicKeyPem),
      ),
    ).toBe(true);
    expect(verify(dir)).toEqual({ status: 0, out: 'Verified OK' });

    const bytes = readFileSync(join(dir, 'body.json'));
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(join(dir, 'body.json'), bytes);
    expect(verify(dir)).toEqual({ status: 1, out: 'Verification failure' });
  });

  it('refuses, writing nothing, when no body the bank signed reached the payout (it learned by polling)', async () => {
    stack.sandbox.setFaults({ webhooks: [{ kind: 'drop', types: ['payment_finished'] }] });
    const request = payoutRequest({ selfEmployed: false });
    try {
      expect((await outcome(await startPayout(stack, request))).state).toBe('succeeded');
    } finally {
      stack.sandbox.setFaults({});
    }
    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-proof-')), 'proof');
    const run = await runCli(['payout', 'proof', request.reference, '--out', dir], {
      ...stack.cliEnv('viewer'),
      PAYRUN_LANG: 'en',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/holds no payment_finished of session .* that the bank's key verifies/);
    expect(() => statSync(dir)).toThrow();
  });

  it('a body someone else signed, signalled to a paid payout, is no proof', async () => {
    stack.sandbox.setFaults({ webhooks: [{ kind: 'drop', types: ['payment_finished'] }] });
    const request = payoutRequest({
      selfEmployed: false,
      method: { type: 'card', cardNumber: TEST_CARDS.CONFIRMATION_PAYOUT_NEVER },
    });
    const handle = await startPayout(stack, request, { ...FAST, awaitCreditConfirmation: true });
    try {
      await waitFor(
        async () => (await handle.query(payoutStatusQuery)).state === 'succeeded',
        60_000,
        'paid',
      );
    } finally {
      stack.sandbox.setFaults({});
    }
    const sessionId = (await handle.query(payoutStatusQuery)).bank.sessionId!;
    // An attacker with Temporal's signal right and a key of their own: a well-formed, wrongly signed body.
    const raw = Buffer.from(JSON.stringify({ ...genuine!, session: { ...genuine!.session, id: sessionId } }));
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const signature = sign('sha256', raw, forger).toString('base64');
    await handle.signal(bankEventSignal, {
      id: createHash('sha256').update(raw).digest('hex'),
      type: 'payment_finished',
      sessionId,
      receivedAt: new Date().toISOString(),
      signed: { body: raw.toString('base64'), signature },
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-proof-')), 'proof');
    await expect(
      writePayoutProof(stack.client, request.reference, dir, stack.sandbox.bankPublicKeyPem, dataDir),
    ).rejects.toThrow(/holds no payment_finished of session/);
    expect(() => statSync(dir)).toThrow();
    await handle.terminate('test over');
  });

  it('outlives the history: reconciliation keeps the signed body, the proof is written from it', async () => {
    const request = payoutRequest({ selfEmployed: false });
    const status = await outcome(await startPayout(stack, request));
    expect(status.state).toBe('succeeded');
    const day = moscowDay((await sandboxAdmin(stack, 'clock')).now_ms as number);
    expect(await reconcileDayNow(stack, day, QUICK_WAIT, DEPOSIT_ACCOUNT)).toMatchObject({
      outcome: 'reconciled',
    });
    // The namespace's retention removes a closed history; deleting it does the same now.
    const workflowId = payoutWorkflowId(request.reference);
    await stack.client.workflowService.deleteWorkflowExecution({
      namespace: stack.client.options.namespace,
      workflowExecution: { workflowId },
    });
    await waitFor(
      async () => (await lookupPayout(stack.client, workflowId)).kind === 'none',
      60_000,
      'the history gone',
    );
    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-proof-')), 'proof');
    const proof = await writePayoutProof(
      stack.client,
      request.reference,
      dir,
      stack.sandbox.bankPublicKeyPem,
      dataDir,
    );
    expect(proof.sessionId).toBe(status.bank.sessionId);
    expect(verify(dir)).toEqual({ status: 0, out: 'Verified OK' });
  });

  it('the command writes the folder for a paid row, with the key from BANK_PUBLIC_KEY_*', async () => {
    const request = payoutRequest({ selfEmployed: false });
    expect((await outcome(await startPayout(stack, request))).state).toBe('succeeded');
    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-proof-')), 'proof');
    const run = await runCli(['payout', 'proof', request.reference, '--out', dir], {
      ...stack.cliEnv('viewer'),
      PAYRUN_LANG: 'en',
    });
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(new RegExp(`^${request.reference}: proof of payment written to `));
    expect(verify(dir)).toEqual({ status: 0, out: 'Verified OK' });
  });
});
