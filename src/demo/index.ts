import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadDataDir, loadDemoKeep, loadTemporalConfig } from '../config';
import { ensurePrivateDir } from '../private-fs';
import { connectClient, devKeyFile, ensureDevKeyFile, KeyRing } from '../temporal';
import { preferredPort, startDevServer, type RunningDevServer } from '../devserver';
import { batchFolders } from '../batch/services/folders';
import { submitBatch } from '../batch/commands/submit';
import type { BatchStatement } from '../../workflows/shared/approval-contract';
import { subjectOf } from '../batch/services/authorize';
import { commandAnswer } from '../i18n/operator-answers';
import { sendBatchDecision } from '../batch/commands/decide';
import { readMeta } from '../batch/store/files';
import { parsePolicy } from '../policy/file';
import { writePolicy, type PersonSpec } from '../policy/generate';
import { hashPassword } from '../console/passwords';
import { signerFromKeyFile, signStatement } from '../policy/keys';
import { describeCounts, followBatch } from '../cli/follow';
import { reconcileDemoDay } from '../cli/reconcile';
import { PROJECT_ROOT } from '../paths';
import { DEMO_PASSWORD, demoLines } from './lines';
import { ensureCodecToken, startDemoComponents, TASK_QUEUE } from './components';
import type { Component } from './processes';

/* eslint-disable no-console -- the demo talks to a person at a terminal */

const DATA_DIR = resolve(loadDataDir());
const CONSOLE_MAY_DECIDE = ['cli-key', 'passkey', 'console-session'] as const;
const KEEP = loadDemoKeep();
const EXAMPLE = join(PROJECT_ROOT, 'batches', 'examples', 'demo-payouts.csv');

/** The demo's accounting department: one prepares, two may approve, the inbox watcher submits only. */
const demoPeople = async (): Promise<PersonSpec[]> => {
  // One published password for the demo's people in the console: demo only, on loopback.
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  return [
    { id: 'demo-preparer', name: 'Анна Демидова (демо)', roles: ['preparer'], passwordHash },
    { id: 'demo-approver', name: 'Олег Демченко (демо)', roles: ['approver'], passwordHash },
    { id: 'demo-approver-2', name: 'Ирина Демьянова (демо)', roles: ['approver'], passwordHash },
    { id: 'demo-watcher', name: 'наблюдатель входящей папки (демо)', roles: ['service'] },
    { id: 'demo-console', name: 'консоль (демо)', roles: ['authenticator'] },
  ];
};

async function main(): Promise<void> {
  const logDir = join(DATA_DIR, 'logs');
  const running: Component[] = [];
  console.log(demoLines.start(DATA_DIR, logDir));
  ensurePrivateDir(DATA_DIR);
  // One dev key for every demo process (payloads and the batch store), kept for the next run.
  ensureDevKeyFile(DATA_DIR);
  const payloadKeysFile = devKeyFile(DATA_DIR);
  const uiPort = await preferredPort(8233);
  const codecPort = await preferredPort(8888);
  const codecToken = ensureCodecToken(DATA_DIR);
  // On loopback the demo's approvers may also approve with the console's own key, as its second factor is
  // optional there (components.ts): a newcomer clicks "approve" in the console without registering a passkey.
  // Production's default counts only a person's own key or passkey (docs/security.md, "Who may pay").
  const people = writePolicy(
    join(DATA_DIR, 'people'),
    await demoPeople(),
    {},
    { proofs: { approve: [...CONSOLE_MAY_DECIDE], reject: [...CONSOLE_MAY_DECIDE] } },
  );
  const as = (id: string) =>
    `PAYRUN_POLICY_FILE=${people.file} PAYRUN_PERSON=${id} PAYRUN_KEY_FILE=${people.keyFiles[id]}`;
  const server: RunningDevServer = await startDevServer({
    port: await preferredPort(7233),
    uiPort,
    dbFile: join(DATA_DIR, 'temporal.db'),
    logFile: join(logDir, 'temporal.log'),
    uiCodecEndpoint: `http://127.0.0.1:${codecPort}/${codecToken}`,
  });
  let closeClient: (() => Promise<void>) | undefined;
  const stopAll = async () => {
    await closeClient?.().catch(() => undefined);
    for (const c of running.reverse()) await c.stop();
    await server.stop();
  };
  process.once('SIGINT', () => {
    console.log(demoLines.interrupted());
    // Whatever fails while stopping, Ctrl-C still ends the demo.
    void stopAll().finally(() => process.exit(130));
  });

  try {
    const demo = await startDemoComponents({
      dataDir: DATA_DIR,
      logDir,
      temporalAddress: server.address,
      payloadKeysFile,
      policyFile: people.file,
      console: { serviceId: 'demo-console', keyFile: people.keyFiles['demo-console']! },
      codec: {
        port: codecPort,
        token: codecToken,
        uiOrigins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`],
      },
    });
    running.push(...demo.components);
    // Said once everything is up, the dev server with the rest: each address works when it is read.
    const services = demoLines.services({
      temporalAddress: server.address,
      uiUrl: server.uiUrl,
      sandboxUrl: demo.sandboxUrl,
      ingressUrl: demo.ingressUrl,
      taskQueue: TASK_QUEUE,
      codecUrl: `http://127.0.0.1:${codecPort}`,
      codecTokenFile: join(DATA_DIR, 'keys', 'codec-token'),
      consoleUrl: demo.consoleUrl,
    });
    for (const line of services) console.log(line);
    const connected = await connectClient({
      config: loadTemporalConfig({ TEMPORAL_ADDRESS: server.address }),
      ring: new KeyRing(ensureDevKeyFile(DATA_DIR)),
    });
    closeClient = connected.close;
    const client = connected.client;

    // Fresh references each run: the dev server keeps its history, and a reference is paid only once.
    const run = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const paths = { dataDir: DATA_DIR, batchesDir: join(DATA_DIR, 'batches') };
    const inbox = batchFolders(paths.batchesDir).inbox;
    const file = join(inbox, `demo-payouts-${run}.csv`);
    writeFileSync(file, readFileSync(EXAMPLE, 'utf8').replace(/^demo-/gm, `demo-${run}-`));
    const submitted = await submitBatch(client, file, {
      paths,
      taskQueue: TASK_QUEUE,
      policy: 'partial',
      batchOptions: { payout: { pollAfterMs: 5_000 } },
      submitter: signerFromKeyFile('demo-preparer', people.keyFiles['demo-preparer']!),
      whoMayPay: parsePolicy(readFileSync(people.file, 'utf8'), people.file),
    });
    if (submitted.status !== 'started') throw new Error(demoLines.notStarted(submitted.status));
    console.log(
      demoLines.submitted({
        file,
        batchId: submitted.batchId,
        valid: submitted.valid,
        invalid: submitted.invalid,
        like: `${as('demo-preparer')} bin/payrun batch submit --partial FILE`,
      }),
    );
    // The policy asks an approver who is not the submitter: the demo approves as its demo approver, and says so.
    const approval = signStatement<BatchStatement>(
      signerFromKeyFile('demo-approver', people.keyFiles['demo-approver']!),
      {
        kind: 'batch',
        decision: 'approve',
        ...subjectOf(readMeta(DATA_DIR, submitted.batchId)),
      },
    );
    const answer = commandAnswer(await sendBatchDecision(client, submitted.batchId, approval));
    console.log(
      demoLines.approved(answer, `${as('demo-approver')} bin/payrun batch approve ${submitted.batchId}`),
    );
    const result = await Promise.race([
      followBatch(client, submitted.batchId),
      ...demo.components.map((c) => c.unexpectedExit),
    ]);
    console.log(demoLines.done(describeCounts(result.counts, result.amounts)));
    console.log(demoLines.files(result));
    console.log(demoLines.batchInUi(`${server.uiUrl}/namespaces/default/workflows/${submitted.batchId}`));
    // Closing the day: the demo's payouts against the bank's statement of today (Moscow).
    const day = await reconcileDemoDay(client, TASK_QUEUE);
    console.log(demoLines.reconciled(day.clean));
    for (const line of day.lines) console.log(`   ${line}`);
    if (!day.clean) throw new Error(demoLines.notClean());
  } catch (err) {
    await stopAll();
    throw err;
  }

  if (KEEP) {
    console.log(demoLines.keep());
    await new Promise(() => undefined);
  }
  console.log(demoLines.stopping());
  await stopAll();
}

main().catch((err) => {
  console.error(demoLines.failed(err instanceof Error ? err.message : String(err)));
  process.exit(1);
});
