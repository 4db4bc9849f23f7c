import { Command, CommanderError } from 'commander';
import { ConfigError, loadProcessSettings } from '../config';
import { boundHeapGrowth, PROCESS_HEAP_GROWING_PERCENT } from '../heap';
import { t, usageErrorText, usageHint } from '../i18n';
import { registerApi } from './api';
import { registerBatch } from './batch';
import { registerCodecServer } from './codec-server';
import { registerConsole } from './console';
import { registerDoctor } from './doctor';
import { registerEvents } from './events';
import { registerIngress } from './ingress';
import { registerPayout } from './payout';
import { registerRefund } from './refund';
import { registerPeople } from './people';
import { registerRecipient } from './recipient';
import { registerReceipts } from './receipts';
import { registerReconcile } from './reconcile';
import { registerSandbox } from './sandbox';
import { registerSchedule } from './schedule';
import { registerStore } from './store';
import { registerWatch } from './watch';
import { registerWorker } from './worker';

/**
 * `payrun` command line. Exit codes: 0 success, 1 the operation failed (the message says why),
 * 2 wrong usage or configuration.
 */
export function buildProgram(): Command {
  const program = new Command('payrun')
    .description('Payout batch processor on Temporal')
    // commander's usage errors are English: said again in the language set, with where the help is.
    .configureOutput({ outputError: (text, write) => write(usageErrorText(text)) })
    .showHelpAfterError(usageHint())
    .exitOverride();
  registerWorker(program);
  registerDoctor(program);
  registerIngress(program);
  registerBatch(program);
  registerPayout(program);
  registerRefund(program);
  registerEvents(program);
  registerReconcile(program);
  registerReceipts(program);
  registerPeople(program);
  registerRecipient(program);
  registerWatch(program);
  registerSchedule(program);
  registerApi(program);
  registerSandbox(program);
  registerStore(program);
  registerCodecServer(program);
  registerConsole(program);
  return program;
}

export async function main(argv = process.argv): Promise<number> {
  try {
    // Settings every command uses (PAYRUN_LANG, PAYRUN_MAX_PAYOUT, …) are checked before any command runs.
    loadProcessSettings();
    // Commands that read a whole file (submit, watch, the console's uploads) stay near what they keep live.
    boundHeapGrowth(PROCESS_HEAP_GROWING_PERCENT);
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof ConfigError) {
      // The heading in the language set; ConfigError's own message (English) stays for the processes' logs.
      console.error(t('cli.config_invalid', { problems: err.problems }));
      return 2;
    }
    console.error(`payrun: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (require.main === module) {
  // main() reports every failure itself and resolves to the exit code.
  void main().then((code) => process.exit(code));
}
