/**
 * `payrun console` from the environment: PAYRUN_CONSOLE_* (src/config/console.ts), TEMPORAL_*, PAYRUN_POLICY_FILE,
 * PAYRUN_DATA_DIR/PAYRUN_BATCHES_DIR, and the bank's variables for the dry run when they are set.
 */
import { createBankClient, type BankClient } from '../bank';
import { loadBatchPaths } from '../batch/services/config';
import {
  loadConsoleSettings,
  loadOptionalBankConfig,
  loadOptionalWebhookVerificationConfig,
  loadProcessSettings,
  loadWorkflowIdSecret,
  type Env,
} from '../config';
import { createLogger } from '../logger';
import { loadPolicy, PolicySource } from '../policy/file';
import { connectClient, loadTemporalSetup } from '../temporal';
import { consoleKey } from './context';
import { startConsole } from './server';

const log = createLogger('console');

/** Serves until SIGINT/SIGTERM, then closes the server and the Temporal connection. */
export async function runConsoleFromEnv(env?: Env): Promise<void> {
  const { lang } = loadProcessSettings(env);
  const settings = loadConsoleSettings(env);
  // Fail at start, naming the line or the variable, rather than at the first sign-in or approval.
  consoleKey(settings, loadPolicy(env));
  // The recipient pages and the review's ledger check derive workflow ids from tax numbers with it.
  loadWorkflowIdSecret(env);
  const paths = loadBatchPaths(env);
  const setup = loadTemporalSetup(env);
  // The dry run needs the bank; without its variables the console still serves everything else.
  const bankConfig = loadOptionalBankConfig(env);
  let bank: BankClient | undefined;
  if (bankConfig) bank = createBankClient(bankConfig, createLogger('bank'));
  // The payout page's proof download checks the bank's signature with it; without it, it says so.
  const { bankPublicKeyPem } = loadOptionalWebhookVerificationConfig(env);
  // Three tries (about half a second of back-off) per call: with Temporal down a page says so at once.
  const { client, close } = await connectClient(setup, { retryForMs: 120_000, grpcAttempts: 3 });
  const running = await startConsole({
    client,
    taskQueue: setup.config.taskQueue,
    paths,
    policy: new PolicySource(env),
    settings,
    lang,
    ...(bank ? { bank } : {}),
    ...(bankPublicKeyPem ? { bankPublicKeyPem } : {}),
  });
  log.info({ url: running.url }, 'console listening');
  process.stderr.write(`payrun console: ${running.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  await bank?.close();
  await close();
}
