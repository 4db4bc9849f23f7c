import type { Command } from 'commander';
import { runWorker } from '../worker/main';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a payrun worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, PAYRUN_TASK_QUEUE)')
    .action(async () => {
      await runWorker();
    });
}
