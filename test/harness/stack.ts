import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { BankClient } from '../../src/bank';
import type { PayerConfig } from '../../src/config';
import { createIngress, type ListeningIngress } from '../../src/ingress';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PolicySource } from '../../src/policy/file';
import {
  writePolicy,
  type PersonSpec,
  type PolicyRulesSpec,
  type WrittenPolicy,
} from '../../src/policy/generate';
import { signerFromKeyFile, type Signer } from '../../src/policy/keys';
import { buildActivities, type ActivityDeps } from '../../src/worker/activities';
import { connectClient, startTestWorker, temporalAddress, type TestWorker } from './temporal';

export const TEST_PAYER: PayerConfig = {
  payerType: 'legal',
  payerTaxNumber: '7707083893',
  payerName: 'ООО «Пэйран Тест»',
};
const PROJECT = 'payrun-test';

/**
 * The whole of payrun as production wires it, on loopback: the bank sandbox, the webhook ingress
 * (the sandbox's webhook URL points at it), a real worker whose activities call the sandbox over
 * HTTP with a real signed client, and a Temporal client. Nothing of ours is mocked.
 */
export interface Stack {
  sandbox: RunningSandbox;
  bank: BankClient;
  client: Client;
  worker?: TestWorker;
  /** Environment for a `payrun worker` process wired to this stack (same sandbox, keys, task queue). */
  workerEnv: NodeJS.ProcessEnv;
  ingress: ListeningIngress;
  taskQueue: string;
  /** The stack's policy file and each test person's key (TEST_PEOPLE). */
  people: WrittenPolicy & { dir: string };
  /** A test person's signer: `preparer`, `approver`, `approver2`, `viewer`, `watcher`, `both`. */
  signer(id: string): Signer;
  /** `workerEnv` plus a test person's credential, for `payrun` commands run as that person. */
  cliEnv(id: string): NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** The test department: `both` may prepare and approve (never their own batch); `watcher` is a service. */
export const TEST_PEOPLE: PersonSpec[] = [
  { id: 'preparer', name: 'Мария Подготовкина', roles: ['preparer'] },
  { id: 'approver', name: 'Олег Утвердилов', roles: ['approver'] },
  { id: 'approver2', name: 'Ирина Второва', roles: ['approver'] },
  { id: 'both', name: 'Пётр Двойной', roles: ['preparer', 'approver'] },
  { id: 'viewer', name: 'Вера Смотрова', roles: ['viewer'] },
  { id: 'watcher', name: 'inbox watcher', roles: ['service'] },
];

/**
 * Most suites test something other than approvals: their stacks ask none (a policy that says so, not the
 * absence of one). Approval suites pass `policy: {}` for the defaults, or the rules they test.
 */
export const NO_APPROVALS: PolicyRulesSpec = {
  submitted_files_need_approval: false,
  dropped_files_need_approval: false,
  hand_started_payouts_need_approval_above: '1 000 000 000,00',
};

export interface StackOptions {
  sandbox?: Partial<SandboxOptions>;
  /** false: no worker in the test process (crash tests run workers as their own processes). */
  inProcessWorker?: boolean;
  /** The benchmark's no-codec baseline only: payrun itself always encrypts. */
  dataConverterOverride?: DataConverter;
  /** Worker tuning for the benchmark's sweep (maxCachedWorkflows, pollers, slots, …). */
  workerOverrides?: Partial<WorkerOptions>;
  /** The policy's rules; default NO_APPROVALS. */
  policy?: PolicyRulesSpec;
  /** Signed status events (docs/events.md): the endpoints and the delivery's retry policy. */
  events?: ActivityDeps['events'];
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const partnerPrivate = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const partnerPublic = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const sandbox = await startSandbox({
    projects: [{ id: PROJECT, publicKeyPem: partnerPublic }],
    optionalWebhooks: true,
    ...opts.sandbox,
  });
  const bank = new BankClient({
    baseUrl: sandbox.url,
    project: PROJECT,
    privateKeyPem: partnerPrivate,
    apiVersion: 1,
  });
  const { client, close: closeClient } = await connectClient({
    dataConverterOverride: opts.dataConverterOverride,
  });
  const taskQueue = `stack-${randomUUID()}`;
  const policyDir = mkdtempSync(join(tmpdir(), 'payrun-policy-'));
  const people = { ...writePolicy(policyDir, TEST_PEOPLE, opts.policy ?? NO_APPROVALS), dir: policyDir };
  const ingress = await createIngress({
    client,
    taskQueue,
    bankPublicKeyPem: sandbox.bankPublicKeyPem,
    allowedIps: [],
    maxBodyBytes: 1_048_576,
    inboxWorkflowId: `inbox-${taskQueue}`,
  }).listen(0, '127.0.0.1');
  sandbox.setWebhookUrl(`${ingress.url}/webhooks/bank`, true);
  const activities = buildActivities({
    bank,
    payer: TEST_PAYER,
    client,
    taskQueue,
    bankPublicKey: createPublicKey(sandbox.bankPublicKeyPem),
    policy: new PolicySource({ PAYRUN_POLICY_FILE: people.file }),
    ...(opts.events ? { events: opts.events } : {}),
  });
  const stack: Stack = {
    sandbox,
    bank,
    client,
    ingress,
    taskQueue,
    people,
    signer: (id) => {
      const file = people.keyFiles[id];
      if (!file) throw new Error(`no test person ${id}`);
      return signerFromKeyFile(id, file);
    },
    cliEnv: (id) => ({ ...stack.workerEnv, PAYRUN_PERSON: id, PAYRUN_KEY_FILE: people.keyFiles[id] }),
    worker:
      opts.inProcessWorker === false
        ? undefined
        : await startTestWorker({
            taskQueue,
            activities,
            dataConverterOverride: opts.dataConverterOverride,
            overrides: opts.workerOverrides,
          }),
    workerEnv: {
      TEMPORAL_ADDRESS: temporalAddress(),
      PAYRUN_TASK_QUEUE: taskQueue,
      BANK_ENV: 'test',
      BANK_BASE_URL_TEST: sandbox.url,
      BANK_PUBLIC_KEY_TEST: sandbox.bankPublicKeyPem,
      PARTNER_PROJECT: PROJECT,
      PARTNER_PRIVATE_KEY: partnerPrivate,
      PAYER_TYPE: TEST_PAYER.payerType,
      PAYER_TAX_NUMBER: TEST_PAYER.payerTaxNumber,
      PAYER_NAME: TEST_PAYER.payerName,
      PAYRUN_POLICY_FILE: people.file,
    },
    async stop() {
      await stack.worker?.stop();
      await ingress.close();
      await sandbox.close();
      await bank.close();
      await closeClient();
    },
  };
  return stack;
}
